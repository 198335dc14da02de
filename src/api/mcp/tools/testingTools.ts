import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { StartedTestRun, TestRunSummary } from '../../../testing/testRunner.ts';
import { type ToolContext, answer, settled } from '../toolContext.ts';
import { resolveVersion, versionRef } from './versionRef.ts';
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, keepRunning, queuedEntry, startThenWaitAtMost, testRunEntry, waitAtMost } from './testRunWaiting.ts';

const target = {
  version: versionRef.optional().describe('Run against this version: its number or version_id (default: production, else the latest version)'),
  draft: z.boolean().optional().describe('Run against the current draft instead of a version'),
  wait_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).optional().describe(`How long to wait for the runs (default ${DEFAULT_WAIT_SECONDS}); after that the runs go on and their status so far is returned`),
};
const runEntry = z.object({
  flow_run_id: z.string().nullable().describe('null while the run is queued'),
  test_case_id: z.string(),
  name: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'paused', 'queued']),
  passed: z.boolean().nullable(),
  assertions: z.array(z.object({ type: z.string(), passed: z.boolean(), score: z.number(), reason: z.string() })),
  output_excerpt: z.string().nullable(),
});

/** Test cases and test runs: each run an ordinary engine run (mode `test`), so its trace is read like any other. */
export function registerTestingTools(server: McpServer, ctx: ToolContext) {

  server.registerTool(
    'run_test_case',
    {
      title: 'Run one test case',
      description: 'Runs a test case (calls models, spends credits) and evaluates its assertions. Read the run with get_test_run_trace(flow_run_id).',
      inputSchema: { test_case_id: z.string().min(1), ...target },
      outputSchema: runEntry.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      answer(ctx, () => runOneTestCase(ctx, args)),
  );

  server.registerTool(
    'run_all_tests',
    {
      title: "Run a flow's test cases",
      description: 'Runs every test case of a flow against one version (or the draft), a few at a time, and returns the totals and one entry per test case.',
      inputSchema: { flow_id: z.string().min(1), ...target },
      outputSchema: {
        flow_id: z.string(),
        complete: z.boolean().describe('false when wait_seconds ran out first: the runs go on; read them later with get_test_run_trace'),
        totals: z.object({ total: z.number().int(), passed: z.number().int(), failed: z.number().int(), running: z.number().int() }),
        runs: z.array(runEntry),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      answer(ctx, () => runAllTests(ctx, args)),
  );
}

type TargetArgs = { version?: number | string | undefined; draft?: boolean | undefined; wait_seconds?: number | undefined };

/** `run_test_case`: runs one case, waiting at most `wait_seconds`; a run still going is left running and answered as it stands. */
async function runOneTestCase(ctx: ToolContext, args: TargetArgs & { test_case_id: string }) {
  const subject = ctx.metadata.principal.id;
  const testCase = await ctx.services.testing.requireTestCase(ctx.scope, args.test_case_id);
  const version = await versionNumber(ctx, testCase.flowId, args.version);
  await ctx.runLimiter(subject);
  const { started, running, outcome } = await startThenWaitAtMost<StartedTestRun, TestRunSummary>(
    (onStarted) => ctx.services.testing.runTestCase(ctx.scope, { testCaseId: args.test_case_id, version, draft: args.draft, onStarted }, ctx.metadata),
    args.wait_seconds ?? DEFAULT_WAIT_SECONDS,
  );
  if (outcome.done) {
    // Answered once the promotion gate would see the result (set_production_version reads the read models).
    await settled(ctx, outcome.value.position);
    return testRunEntry(started!, outcome.value);
  }
  keepRunning(ctx, running, started ? [started.executionId] : []);
  return started ? testRunEntry(started, undefined) : queuedEntry(args.test_case_id, testCase.definition.name);
}

/** `run_all_tests`: a flow's suite, waiting at most `wait_seconds`, with totals and an entry per case. */
async function runAllTests(ctx: ToolContext, args: TargetArgs & { flow_id: string }) {
  const subject = ctx.metadata.principal.id;
  await ctx.services.authoring.requireFlow(ctx.scope, args.flow_id);
  const cases = await ctx.services.testing.listTestCases(ctx.scope, args.flow_id);
  await ctx.runLimiter(subject);
  const started = new Map<string, StartedTestRun>();
  const finished = new Map<string, TestRunSummary>();
  const suite = ctx.services.testing.runSuite(ctx.scope,
    { flowId: args.flow_id, version: await versionNumber(ctx, args.flow_id, args.version), draft: args.draft, onStarted: (run) => started.set(run.testCaseId, run), onFinished: (run) => finished.set(run.testCaseId, run) },
    ctx.metadata,
  );
  const outcome = await waitAtMost(suite, args.wait_seconds ?? DEFAULT_WAIT_SECONDS);
  // A complete suite is answered once the promotion gate would see every result.
  if (outcome.done) await settled(ctx, Math.max(0, ...[...finished.values()].map((run) => run.position)));
  if (!outcome.done) keepRunning(ctx, suite, [...started.values()].filter((run) => !finished.has(run.testCaseId)).map((run) => run.executionId));
  const runs = cases.map((c) => {
    const run = started.get(c.testCaseId);
    return run ? testRunEntry(run, finished.get(c.testCaseId)) : queuedEntry(c.testCaseId, c.name);
  });
  const passed = runs.filter((r) => r.passed === true).length;
  const failed = runs.filter((r) => r.passed === false).length;
  return { flow_id: args.flow_id, complete: outcome.done, totals: { total: runs.length, passed, failed, running: runs.length - passed - failed }, runs };
}

/** A version given by id is run by its number, as given by number. */
const versionNumber = async (ctx: ToolContext, flowId: string, ref: number | string | undefined) => (typeof ref === 'string' ? (await resolveVersion(ctx, flowId, ref)).number : ref);
