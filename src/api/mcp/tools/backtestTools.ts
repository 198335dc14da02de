import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAX_BACKTEST_RUNS, type BacktestSelection } from '../../../domain/backtests/backtestEvents.ts';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { truncateStrings } from '../../../domain/execution/truncate.ts';
import type { BacktestPair } from '../../../backtests/backtestReport.ts';
import { type ToolContext, answer, settled } from '../toolContext.ts';
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, keepRunning, waitAtMost } from './testRunWaiting.ts';
import { resolveVersion, versionRef } from './versionRef.ts';

/** What each recorded run was given, by its id. */
type Inputs = ReadonlyMap<string, z.infer<typeof runInput> | null>;

/** Runs a backtest replays when the assistant names none, and the differences an answer shows first. */
const DEFAULT_LAST = 20;
const FIRST_DIFFERENCES = 10;
const CHANGES_SHOWN = 5;
const PAGE = 20;
const EXCERPT = 300;

const change = z.object({ path: z.string(), kind: z.enum(['added', 'removed', 'changed']), before: z.string().optional(), after: z.string().optional() });
const runInput = z.object({ message: z.string().nullable(), parameters: z.record(z.string(), z.unknown()), attachments: z.array(z.unknown()) }).nullable().describe('What the recorded run was given (long strings cut), as create_test_case takes it');
const difference = z.object({
  flow_run_id: z.string().describe('The recorded production run'),
  input: runInput,
  backtest_run_id: z.string().describe('Its replay on the target (read it with get_test_run_trace)'),
  outcome: z.enum(['different', 'failed']),
  changes: z.array(change).describe(`The first ${CHANGES_SHOWN} changed paths of the result`),
  more_changes: z.number().int(),
  candidate_error: z.string().nullable().describe('Why the replay failed, when it did'),
});
const summary = z.object({ total: z.number().int(), compared: z.number().int(), same: z.number().int(), different: z.number().int(), failed: z.number().int() });

/** A pair, compactly: its runs, the first changed paths (values cut short), and why the replay failed. */
const pairEntry = <O>(p: { executionId: string; input: z.infer<typeof runInput>; backtestExecutionId: string; outcome: O; changes: z.infer<typeof change>[]; more: number; candidateError: { code: string; message: string } | null }) => ({
  flow_run_id: p.executionId,
  input: truncateStrings(p.input, EXCERPT) as z.infer<typeof runInput>,
  backtest_run_id: p.backtestExecutionId,
  outcome: p.outcome,
  changes: p.changes.slice(0, CHANGES_SHOWN).map((c) => truncateStrings(c, EXCERPT) as z.infer<typeof change>),
  more_changes: p.more + Math.max(0, p.changes.length - CHANGES_SHOWN),
  candidate_error: p.candidateError ? (truncateStrings(`${p.candidateError.code}: ${p.candidateError.message}`, EXCERPT) as string) : null,
});
const pairDifference = (pair: BacktestPair, inputs: Inputs) => pairEntry({ ...pair, input: inputs.get(pair.executionId) ?? null, changes: pair.diff.changes, more: pair.diff.more, candidateError: pair.candidate.error });

/** Backtests: a candidate replayed on recorded production runs, and a recorded run as a test case. */
export function registerBacktestTools(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    'backtest_version',
    {
      title: 'Backtest a version on recorded production runs',
      description:
        `Replays recorded production runs of a flow (their inputs and the tool results their callers sent) on the draft or a version, and compares each answer with the recorded one. Calls models and spends credits. Answers the summary and the first differences; read every pair with get_backtest. Default: the last ${DEFAULT_LAST} runs.`,
      inputSchema: {
        flow_id: z.string().min(1),
        target: z.union([z.literal('draft'), versionRef]).describe('"draft", or a version: its number or version_id'),
        last: z.number().int().min(1).max(MAX_BACKTEST_RUNS).optional().describe('The last N ended production runs'),
        since: z.iso.datetime({ offset: true }).optional().describe('Instead: the production runs from this time (ISO 8601) until now'),
        only_completed: z.boolean().optional().describe('Leave out the runs that failed'),
        wait_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).optional().describe(`How long to wait (default ${DEFAULT_WAIT_SECONDS}); after that the backtest goes on: read it with get_backtest`),
      },
      outputSchema: { backtest_id: z.string(), complete: z.boolean(), summary, first_differences: z.array(difference) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) => answer(ctx, () => backtestVersion(ctx, args)),
  );

  server.registerTool(
    'get_backtest',
    {
      title: 'Read a backtest',
      description: `A backtest's summary and its pairs in order, ${PAGE} at a time (pass next_cursor back as cursor): each recorded run, its replay, the outcome and the changed paths. A pair with outcome null has not been compared yet.`,
      inputSchema: { backtest_id: z.string().min(1), cursor: z.number().int().min(0).optional(), only_changed: z.boolean().optional().describe('Only the pairs that differ or failed') },
      outputSchema: {
        backtest_id: z.string(),
        status: z.enum(['running', 'finished', 'interrupted']),
        target: z.union([z.literal('draft'), z.number().int()]),
        summary,
        pairs: z.array(z.object({ flow_run_id: z.string(), input: runInput, backtest_run_id: z.string(), outcome: z.enum(['same', 'different', 'failed']).nullable(), changes: z.array(change), more_changes: z.number().int(), candidate_error: z.string().nullable() })),
        next_cursor: z.number().int().nullable(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const page = await ctx.services.backtests.backtestPage(ctx.scope, { backtestId: args.backtest_id, cursor: args.cursor, limit: PAGE, onlyChanged: args.only_changed });
        const inputs: Inputs = await ctx.services.backtests.recordedInputs(page.pairs.map((p) => p.executionId));
        return {
          backtest_id: page.backtestId,
          status: page.status,
          target: page.target.kind === 'draft' ? ('draft' as const) : page.target.number,
          summary: { total: page.summary.total, compared: page.summary.compared, same: page.summary.same, different: page.summary.different, failed: page.summary.failed },
          pairs: page.pairs.map((p) => pairEntry({ ...p, input: inputs.get(p.executionId) ?? null, candidateError: p.candidate?.error ?? null })),
          next_cursor: page.nextCursor,
        };
      }),
  );

  server.registerTool(
    'create_test_case_from_run',
    {
      title: 'Turn a run into a test case',
      description: "Makes a recorded run a test case of its flow: its input, the tool results its caller sent, and an equals assertion on its result (a run that failed gets an assertion that the flow completes). Edit it afterwards with update_test_case.",
      inputSchema: { flow_run_id: z.string().min(1), name: z.string().min(1).max(200).optional() },
      outputSchema: { test_case_id: z.string(), flow_id: z.string(), name: z.string(), from_flow_run_id: z.string(), warnings: z.array(z.string()) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const made = await ctx.services.backtests.testCaseFromRun(ctx.scope, { executionId: args.flow_run_id, name: args.name }, ctx.metadata);
        await settled(ctx, made.position);
        return { test_case_id: made.testCaseId, flow_id: made.flowId, name: made.name, from_flow_run_id: args.flow_run_id, warnings: made.warnings };
      }),
  );
}

type BacktestArgs = { flow_id: string; target: 'draft' | string | number; last?: number | undefined; since?: string | undefined; only_completed?: boolean | undefined; wait_seconds?: number | undefined };

/** `backtest_version`: starts the backtest, waits at most `wait_seconds`, answers what is compared so far. */
async function backtestVersion(ctx: ToolContext, args: BacktestArgs) {
  if (args.last !== undefined && args.since !== undefined) throw new ApiError('VALIDATION_FAILED', 'give last or since, not both');
  const version = args.target === 'draft' ? undefined : (await resolveVersion(ctx, args.flow_id, args.target)).number;
  const selection: BacktestSelection = args.since ? { kind: 'window', since: args.since, until: new Date().toISOString() } : { kind: 'last', count: args.last ?? DEFAULT_LAST };
  await ctx.runLimiter(ctx.metadata.principal.id);
  const started = await ctx.services.backtests.startBacktest(ctx.scope, { flowId: args.flow_id, version, draft: version === undefined, selection, onlyCompleted: args.only_completed }, ctx.metadata);
  const compared: BacktestPair[] = [];
  const running = started.run((pair) => compared.push(pair));
  const outcome = await waitAtMost(running, args.wait_seconds ?? DEFAULT_WAIT_SECONDS);
  if (outcome.done) await settled(ctx, outcome.value.position);
  else keepRunning(ctx, running, []);
  const pairs = outcome.done ? outcome.value.runs : compared;
  const count = (o: BacktestPair['outcome']) => pairs.filter((p) => p.outcome === o).length;
  const differences = pairs.filter((p) => p.outcome !== 'same').slice(0, FIRST_DIFFERENCES);
  const inputs: Inputs = await ctx.services.backtests.recordedInputs(differences.map((p) => p.executionId));
  return {
    backtest_id: started.backtestId,
    complete: outcome.done,
    summary: { total: started.total, compared: pairs.length, same: count('same'), different: count('different'), failed: count('failed') },
    first_differences: differences.map((pair) => pairDifference(pair, inputs)),
  };
}
