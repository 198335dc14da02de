import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { createApiKey, revokeApiKey } from '../commands/apiKeyCommands.ts';
import { redeliver } from '../commands/deliveryCommands.ts';
import { exportFlow, importFlow } from '../commands/flowCommands.ts';
import { addMember, createOrganization, findOrganizationId, grantCredits, setProviderKey } from '../commands/organizationCommands.ts';
import { creditBalance } from '../queries/creditQueries.ts';
import { createProject } from '../commands/projectCommands.ts';
import { ConfigError, loadConfig } from '../config/config.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';
import { createLogger } from '../runtime/logger.ts';
import { type Runtime, openRuntime } from '../runtime/runtime.ts';
import { type Role, serve } from './serveCommand.ts';

/**
 * The `seqflow` command. JSON on stdout, human messages on stderr, non-zero exit on error. It works
 * on the same database as the server (DATABASE_URL, or the embedded one in the data dir), whether
 * the server runs or not, and brings the read models up to date before it exits.
 */
const cliPrincipal = { principal: { kind: 'cli' as const, id: process.env.USER ?? 'operator' } };

const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

const eventLine = (e: RecordedEvent) => ({
  position: e.position,
  streamId: e.streamId,
  revision: e.revision,
  id: e.id,
  type: e.type,
  schemaVersion: e.schemaVersion,
  data: e.data,
  metadata: e.metadata,
  recordedAt: e.recordedAt,
});

async function withRuntime<T>(work: (runtime: Runtime) => Promise<T>, options: { catchUp?: boolean } = {}): Promise<void> {
  const config = loadConfig();
  const runtime = await openRuntime(config, createLogger(process.env.LOG_LEVEL ?? 'warn', 2));
  try {
    const result = await work(runtime);
    if (options.catchUp !== false) await runtime.projections.catchUp();
    if (result !== undefined) printJson(result);
  } finally {
    await runtime.close();
  }
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
};

const withoutPosition = <T extends { position: number }>({ position: _p, ...rest }: T) => rest;

export function buildCli(): Command {
  const program = new Command('seqflow').description('Seqflow: auditable, replayable LLM flow execution').showHelpAfterError();

  program
    .command('serve')
    .description('run the HTTP API and the workers (npm start runs this)')
    .addOption(new Option('--role <role>', 'what this process runs').choices(['all', 'api', 'worker']).default('all'))
    .action(async (options: { role: Role }) => serve(loadConfig(), options.role));

  program.command('migrate').description('bring the event log and read-model schemas up to date').action(() => withRuntime(async () => ({ migrated: true }), { catchUp: false }));

  const org = program.command('org').description('organizations');
  org
    .command('create')
    .requiredOption('--slug <slug>')
    .requiredOption('--name <name>')
    .action((o: { slug: string; name: string }) =>
      withRuntime(async (rt) => {
        const { id, slug } = await createOrganization(rt.commands, o, cliPrincipal);
        return { id, slug };
      }),
    );

  org
    .command('credits')
    .description("grant credits (tokens) to an organization, or show its balance")
    .requiredOption('--org <slug>')
    .option('--grant <tokens>', 'tokens to add', positiveInt)
    .option('--show', 'print the balance')
    .action((o: { org: string; grant?: number; show?: boolean }) =>
      withRuntime(async (rt) => {
        if (o.grant === undefined && !o.show) throw new ApiError('VALIDATION_FAILED', 'give --grant N or --show');
        const organizationId = await findOrganizationId(rt.commands, o.org);
        if (o.grant !== undefined) await grantCredits(rt.commands, { organizationSlug: o.org, tokens: o.grant }, cliPrincipal);
        await rt.projections.catchUp();
        return { organizationId, balance: await creditBalance(rt.db, organizationId) };
      }),
    );
  org
    .command('provider-key')
    .description("set the organization's own model-provider key (stored encrypted)")
    .requiredOption('--org <slug>')
    .requiredOption('--key <key>')
    .option('--base-url <url>', 'OpenAI-compatible base URL for this key (default: OPENAI_BASE_URL)')
    .action((o: { org: string; key: string; baseUrl?: string }) =>
      withRuntime(async (rt) => withoutPosition(await setProviderKey(rt.commands, { organizationSlug: o.org, key: o.key, baseUrl: o.baseUrl ?? null }, rt.masterKey, cliPrincipal))),
    );

  program
    .command('member')
    .description('organization members')
    .command('add')
    .requiredOption('--org <slug>')
    .requiredOption('--user <subject>', "the member's user subject (the `sub` of their JWT)")
    .addOption(new Option('--role <role>').choices(['owner', 'admin', 'member']).makeOptionMandatory())
    .action((o: { org: string; user: string; role: string }) =>
      withRuntime(async (rt) => withoutPosition(await addMember(rt.commands, { organizationSlug: o.org, userSubject: o.user, role: o.role }, cliPrincipal))),
    );

  program
    .command('project')
    .description('projects')
    .command('create')
    .requiredOption('--org <slug>')
    .requiredOption('--slug <slug>')
    .requiredOption('--name <name>')
    .action((o: { org: string; slug: string; name: string }) =>
      withRuntime(async (rt) => {
        const { id, slug, organizationId } = await createProject(rt.commands, { organizationSlug: o.org, slug: o.slug, name: o.name }, cliPrincipal);
        return { id, slug, organizationId };
      }),
    );

  const apikey = program.command('apikey').description('project API keys');
  apikey
    .command('create')
    .requiredOption('--org <slug>')
    .requiredOption('--project <slug>')
    .addOption(new Option('--env <environment>').choices(['live', 'test']).makeOptionMandatory())
    .action((o: { org: string; project: string; env: string }) =>
      withRuntime(async (rt) => {
        const { key, keyId } = await createApiKey(rt.commands, { organizationSlug: o.org, projectSlug: o.project, environment: o.env }, cliPrincipal);
        process.stderr.write('This is the only time the full key is shown. Store it now.\n');
        return { key, keyId };
      }),
    );
  apikey
    .command('revoke')
    .requiredOption('--key-id <id>')
    .action((o: { keyId: string }) => withRuntime(async (rt) => withoutPosition(await revokeApiKey(rt.commands, { keyId: o.keyId }, cliPrincipal))));

  const flow = program.command('flow').description('flows');
  flow
    .command('import')
    .requiredOption('--org <slug>')
    .requiredOption('--project <slug>')
    .requiredOption('--file <path>', 'flow file (JSON)')
    .option('--publish', 'publish the imported draft as a new version')
    .option('--note <text>', 'note of the published version')
    .option('--production', 'publish and make that version production')
    .action((o: { org: string; project: string; file: string; publish?: boolean; note?: string; production?: boolean }) =>
      withRuntime(async (rt) => {
        const file = await readFlowFile(o.file);
        const imported = await importFlow(
          rt.commands,
          { organizationSlug: o.org, projectSlug: o.project, file, publish: o.publish, note: o.note ?? null, production: o.production },
          cliPrincipal,
        );
        return { flowId: imported.flowId, slug: imported.slug, versionId: imported.versionId };
      }),
    );
  flow
    .command('export')
    .requiredOption('--org <slug>')
    .requiredOption('--project <slug>')
    .requiredOption('--flow <slug>')
    .option('--version <n>', 'a published version number (default: the draft)', positiveInt)
    .action((o: { org: string; project: string; flow: string; version?: number }) =>
      withRuntime((rt) => exportFlow(rt.commands, { organizationSlug: o.org, projectSlug: o.project, flowSlug: o.flow, version: o.version }), { catchUp: false }),
    );

  program
    .command('deliveries')
    .description('webhook deliveries')
    .command('redeliver')
    .description('attempt a dead-lettered or permanently failed delivery again, under the same id')
    .requiredOption('--delivery <id>')
    .action((o: { delivery: string }) => withRuntime(async (rt) => withoutPosition(await redeliver(rt.commands, o.delivery, cliPrincipal))));

  program
    .command('events')
    .description('the event log as JSON lines (the audit view)')
    .option('--stream <id>', 'one stream, e.g. org-<id> or flow-<id>')
    .option('--all', 'the whole log in order')
    .option('--from <position>', 'with --all: only events after this position', positiveInt, 0)
    .action((o: { stream?: string; all?: boolean; from: number }) =>
      withRuntime(
        async (rt) => {
          if (!o.stream === !o.all) throw new ApiError('VALIDATION_FAILED', 'give exactly one of --stream ID or --all');
          if (o.stream) {
            for (const e of await rt.eventStore.readStream(o.stream)) printJson(eventLine(e));
            return undefined;
          }
          for (let from = o.from; ; ) {
            const page = await rt.eventStore.readAll(from, 1000);
            if (page.length === 0) return undefined;
            for (const e of page) printJson(eventLine(e));
            from = page.at(-1)!.position;
          }
        },
        { catchUp: false },
      ),
    );

  program
    .command('projections')
    .description('read models')
    .command('rebuild')
    .description('empty every read model and replay the whole log into it')
    .action(() =>
      withRuntime(
        async (rt) => {
          await rt.projections.rebuild();
          return { rebuilt: true, projections: await rt.projections.status() };
        },
        { catchUp: false },
      ),
    );

  return program;
}

async function readFlowFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ApiError('FLOW_FILE_INVALID', `Cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError('FLOW_FILE_INVALID', `${path} is not valid JSON: ${(error as Error).message}`);
  }
}

export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof ApiError) {
      process.stderr.write(`error ${error.code}: ${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`error: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}

// `seqflow events --all | head` closes stdout early: that is a normal end, not a crash.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

await runCli(process.argv);
