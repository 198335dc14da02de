import type { StartedTestRun, TestRunSummary } from '../../../testing/testRunner.ts';
import { truncateStrings } from '../../../domain/execution/truncate.ts';
import type { ToolContext } from '../toolContext.ts';

/** How long the run_* tools wait for their runs by default, and at most (seconds). */
export const DEFAULT_WAIT_SECONDS = 60;
export const MAX_WAIT_SECONDS = 300;
const OUTPUT_EXCERPT = 500;

/** Long strings cut first, so the excerpt still shows every field; then the JSON text cut as a whole. */
const outputExcerpt = (output: unknown) => truncateStrings(JSON.stringify(truncateStrings(output, OUTPUT_EXCERPT / 4)), OUTPUT_EXCERPT) as string;

/** One test run as an assistant sees it: ids it can pass on, how it went, each assertion, a bounded excerpt of the output. */
export function testRunEntry(run: StartedTestRun, summary: TestRunSummary | undefined) {
  return {
    flow_run_id: run.executionId,
    test_case_id: run.testCaseId,
    name: run.name,
    status: summary?.runStatus ?? ('running' as const),
    passed: summary ? summary.passed : null,
    assertions: (summary?.results ?? []).map((r) => ({ type: r.type, ...(r.step === undefined ? {} : { step: r.step }), passed: r.passed, score: r.score, reason: truncateStrings(r.reason, OUTPUT_EXCERPT) as string })),
    output_excerpt: summary?.output == null ? null : outputExcerpt(summary.output),
  };
}

/** A test case whose run has not started yet (the suite runs a few at a time). */
export const queuedEntry = (testCaseId: string, name: string) => ({ flow_run_id: null, test_case_id: testCaseId, name, status: 'queued' as const, passed: null, assertions: [], output_excerpt: null });

/**
 * Waits for `work` at most `seconds`; after that the caller answers with what it has so far while
 * the runs go on (tracked by the run lifecycle, so a shutdown still ends them cleanly).
 */
export async function waitAtMost<T>(work: Promise<T>, seconds: number): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ done: false }>((resolve) => (timer = setTimeout(() => resolve({ done: false }), seconds * 1000)));
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts a run that tells (`onStarted`) once it is in the log, and answers when it is, whatever
 * `seconds` says (a run refused before that answers its error), then waits at most `seconds` for
 * its end: a tool always names the run it started.
 */
export async function startThenWaitAtMost<S, T>(start: (onStarted: (started: S) => void) => Promise<T>, seconds: number) {
  const told: { started?: S } = {};
  let inLog: () => void = () => undefined;
  const recorded = new Promise<void>((resolve) => (inLog = resolve));
  const running = start((started) => {
    told.started = started;
    inLog();
  });
  await Promise.race([recorded, running]);
  return { started: told.started, running, outcome: await waitAtMost(running, seconds) };
}

/** Runs the tool stopped waiting for go on in this process; the lifecycle tracks them for shutdown, and a failure is logged. */
export function keepRunning(ctx: ToolContext, running: Promise<unknown>, executionIds: string[]) {
  for (const executionId of executionIds) ctx.services.lifecycle.follow(executionId, running);
  running.catch((error: unknown) => ctx.services.logger.warn({ err: error, executionIds }, 'a run started over MCP failed after its caller stopped waiting'));
}
