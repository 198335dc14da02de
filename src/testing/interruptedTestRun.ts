import { type CommandDependencies, handleCommand } from '../commands/commandHandler.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { testRun } from '../domain/testing/testRun.ts';
import { testRunStream } from '../domain/testing/testRunEvents.ts';
import { loadStream } from '../eventstore/streams.ts';

/**
 * Ends a test run whose run was interrupted (its process died): recorded finished, failed, naming
 * the error, so the test run and its suite never stay "running". Answers false when the test run had
 * already finished (its own process recorded it, or another sweep did).
 */
export async function finishInterruptedTestRun(
  commands: CommandDependencies,
  testRunId: string,
  failure: { executionId: string; code: string; message: string; latencyMs: number; principal: Principal },
): Promise<boolean> {
  const streamId = testRunStream(testRunId);
  const { state } = await loadStream(commands.eventStore, streamId, testRun);
  if (state.status !== 'running' || state.executionId !== failure.executionId) return false;
  const data = { testRunId, testCaseId: state.testCaseId, executionId: failure.executionId, runStatus: 'failed' as const, passed: false, results: [], latencyMs: failure.latencyMs, tokens: 0, error: { code: failure.code, message: failure.message } };
  try {
    await handleCommand(commands, streamId, testRun, { type: 'Finish', event: { type: 'TestRunFinished', data } }, { principal: failure.principal, correlationId: testRunId, retryOnConflict: false });
    return true;
  } catch {
    return false; // finished meanwhile
  }
}
