import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ApiError } from '../domain/errors/apiError.ts';
import { cliPrincipal, positiveInt, withRuntime, withoutPosition } from './cliSupport.ts';

interface FlowOptions {
  org: string;
  project: string;
  flow: string;
}
const flowRef = (o: FlowOptions) => ({ organizationSlug: o.org, projectSlug: o.project, flowSlug: o.flow });
const withFlowOptions = (command: Command) => command.requiredOption('--org <slug>').requiredOption('--project <slug>').requiredOption('--flow <slug>');

/** `seqflow flow import|export|versions|promote`; returns the `flow` command for the authoring commands. */
export function registerFlowCommands(program: Command): Command {
  const flow = program.command('flow').description('flows');
  flow
    .command('import')
    .requiredOption('--org <slug>')
    .requiredOption('--project <slug>')
    .requiredOption('--file <path>', 'flow file (JSON)')
    .option('--publish', 'publish the imported draft as a new version (an invalid file changes nothing)')
    .option('--note <text>', 'note of the published version')
    .option('--production', 'publish and make that version production')
    .action((o: { org: string; project: string; file: string; publish?: boolean; note?: string; production?: boolean }) =>
      withRuntime(async (rt) => {
        const file = await readFlowFile(o.file);
        const { importFlow } = await import('../commands/flowCommands.ts');
        const imported = await importFlow(rt.commands, { organizationSlug: o.org, projectSlug: o.project, file, publish: o.publish, note: o.note ?? null, production: o.production }, cliPrincipal);
        return { flowId: imported.flowId, slug: imported.slug, versionId: imported.versionId };
      }),
    );

  withFlowOptions(flow.command('export'))
    .option('--version <n>', 'a published version number (default: the draft)', positiveInt)
    .action((o: FlowOptions & { version?: number }) =>
      withRuntime(async (rt) => {
        const { exportFlow } = await import('../commands/flowCommands.ts');
        return exportFlow(rt.commands, { ...flowRef(o), version: o.version });
      }, { catchUp: false }),
    );

  withFlowOptions(flow.command('versions'))
    .description("the flow's published versions, and which one is production")
    .action((o: FlowOptions) =>
      withRuntime(async (rt) => {
        const { listVersions } = await import('../commands/flowCommands.ts');
        return listVersions(rt.commands, flowRef(o));
      }, { catchUp: false }),
    );

  withFlowOptions(flow.command('promote'))
    .description('make an existing published version the production version (nothing is published again); with the promotion gate on, its tests must have passed, or --force')
    .requiredOption('--version <n>', 'the version number', positiveInt)
    .option('--force', 'past the promotion gate (recorded as its own event)')
    .option('--reason <text>', 'why, with --force')
    .action((o: FlowOptions & { version: number; force?: boolean; reason?: string }) =>
      withRuntime(async (rt) => {
        const { promoteVersionNumber } = await import('../authoring/flowAuthoring.ts');
        const force = o.force ? { reason: o.reason ?? null } : undefined;
        return withoutPosition(await promoteVersionNumber({ ...rt.commands, db: rt.db }, { ...flowRef(o), version: o.version, force }, cliPrincipal));
      }),
    );
  return flow;
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
