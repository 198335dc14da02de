import type { Command } from 'commander';
import { cliPrincipal, positiveInt, withRuntime } from './cliSupport.ts';
import { FLOW_HELP, ORG_HELP, PROJECT_HELP, flowIdOf, organizationOf, projectOf } from './cliRefs.ts';
import { runStatuses } from '../domain/execution/runStatus.ts';
import { runModes } from '../domain/execution/executionEvents.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { erasureMatchOf } from '../security/erasureMatch.ts';

/** `seqflow runs trace|step`: what a run did, read from the log. */
export function registerRunCommands(program: Command) {
  const runs = program.command('runs').description('runs, read from the log');
  runs
    .command('list')
    .description('runs, newest first, across organizations or narrowed: status, mode, failure code, timings, deliveries, and when their data was erased')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .option('--flow <slug|id>', FLOW_HELP)
    .option('--status <list>', `comma-separated: ${runStatuses.join(', ')}`)
    .option('--mode <list>', `comma-separated: ${runModes.join(', ')}`)
    .option('--limit <n>', 'at most this many (1-100)', positiveInt, 20)
    .option('--cursor <cursor>', "the previous page's nextCursor")
    .action((o: ListOptions) => withRuntime((rt) => listRunsOf(rt, o), { catchUp: false }));
  runs
    .command('trace')
    .description('a run: version, target, timings, tokens, status, steps with outputs, tool rounds, and for test runs the assertion results')
    .requiredOption('--execution <id>')
    .action((o: { execution: string }) => withRuntime(async (rt) => (await import('../testing/runTrace.ts')).runTrace(rt.eventStore, {}, o.execution), { catchUp: false }));
  runs
    .command('step')
    .description('one block of a run: rendered prompt, missing placeholders, input, output, model, usage, latency, attempts, tool rounds, error')
    .requiredOption('--execution <id>')
    .requiredOption('--step <step_id>')
    .action((o: { execution: string; step: string }) => withRuntime(async (rt) => (await import('../testing/runTrace.ts')).stepTrace(rt.eventStore, {}, o.execution, o.step), { catchUp: false }));
  runs
    .command('rerun')
    .description('run a recorded run again: same input, same version (never the latest by accident), linked to the original in both streams (rerunOf)')
    .requiredOption('--execution <id>')
    .action((o: { execution: string }) =>
      withRuntime(async (rt) => rt.runs.rerun(o.execution, cliPrincipal), { catchUp: false }),
    );
  runs
    .command('erase')
    .description("erase runs' personal data (input, prompts, replies, tool calls and results, results, webhook bodies): one run, or an organization's runs whose input matches --where; what they did stays, and the log still verifies")
    .option('--execution <id>', 'the run')
    .option('--org <org>', `${ORG_HELP}: with --where`)
    .option('--where <selector>', 'input.message=<text> or input.parameters.<key>=<value>')
    .option('--dry-run', 'list the runs --where matches, erase nothing')
    .option('--reason <text>', 'why (recorded with each erasure)', 'erasure requested by an operator')
    .action((o: EraseOptions) => withRuntime((rt) => eraseRuns(rt, o)));
}

interface ListOptions {
  org?: string;
  project?: string;
  flow?: string;
  status?: string;
  mode?: string;
  limit: number;
  cursor?: string;
}

/** One of `allowed`, or a clear refusal naming them. */
function listOf<T extends string>(text: string | undefined, allowed: readonly T[], option: string): T[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(',');
  const wrong = values.find((v) => !(allowed as readonly string[]).includes(v));
  if (wrong !== undefined) throw new ApiError('VALIDATION_FAILED', `--${option} takes ${allowed.join(', ')} (got '${wrong}')`);
  return values as T[];
}

async function listRunsOf(rt: Runtime, o: ListOptions) {
  if (o.limit > 100) throw new ApiError('VALIDATION_FAILED', '--limit is at most 100');
  const organizationId = o.org === undefined ? undefined : (await organizationOf(rt, { org: o.org })).id;
  const projectId = o.project === undefined ? undefined : (await projectOf(rt, { ...(o.org === undefined ? {} : { org: o.org }), project: o.project })).id;
  const flowId = o.flow === undefined ? undefined : await flowIdOf(rt, { ...(o.org === undefined ? {} : { org: o.org }), ...(o.project === undefined ? {} : { project: o.project }), flow: o.flow });
  const filters = {
    ...(organizationId === undefined ? {} : { organizationId }),
    ...(projectId === undefined ? {} : { projectId }),
    ...(flowId === undefined ? {} : { flowId }),
    ...(o.status === undefined ? {} : { status: listOf(o.status, runStatuses, 'status') }),
    ...(o.mode === undefined ? {} : { mode: listOf(o.mode, runModes, 'mode') }),
  };
  return rt.runs.listAll(filters, { limit: o.limit, ...(o.cursor === undefined ? {} : { cursor: o.cursor }) });
}

interface EraseOptions {
  execution?: string;
  org?: string;
  where?: string;
  dryRun?: boolean;
  reason: string;
}

async function eraseRuns(rt: Runtime, o: EraseOptions) {
  if ((o.execution === undefined) === (o.where === undefined) || (o.where !== undefined && o.org === undefined)) {
    throw new ApiError('VALIDATION_FAILED', 'give either --execution ID, or --org S with --where SELECTOR');
  }
  if (o.execution !== undefined) return rt.runs.eraseData({ executionId: o.execution, reason: o.reason }, cliPrincipal);
  const [{ parseRunSelector }, { findRunsToErase }] = await Promise.all([import('../domain/privacy/runSelector.ts'), import('../execution/findRunsToErase.ts')]);
  const selector = parseRunSelector(o.where!);
  const organization = await organizationOf(rt, { org: o.org! });
  const matched = await findRunsToErase(rt, organization.id, selector);
  if (o.dryRun) return { dryRun: true, where: selector.text, matched };
  // The log records which field matched and a salted hash of the value, never the value: the reason is the operator's words alone.
  const match = erasureMatchOf(selector);
  const erased = [];
  const notErased = [];
  for (const run of matched) {
    try {
      erased.push(await rt.runs.eraseData({ executionId: run.executionId, reason: o.reason, match }, cliPrincipal));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      notErased.push({ executionId: run.executionId, code: error.code, message: error.message });
    }
  }
  return { where: selector.text, erased, notErased };
}
