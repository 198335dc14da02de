import type { StartedTestRun, TestRunSummary } from '../../../testing/testRunner.ts';
import { truncateStrings } from '../../../domain/execution/truncate.ts';

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
    assertions: (summary?.results ?? []).map((r) => ({ type: r.type, passed: r.passed, score: r.score, reason: truncateStrings(r.reason, OUTPUT_EXCERPT) as string })),
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
