import { capFailureMessage } from '../domain/execution/failureMessage.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { createExecutionRecorder } from './executionRecorder.ts';

/**
 * Ends a run that cannot go on (a job claimed too often, a sync run cut by a shutdown) with
 * `ExecutionFailed`, so it never stays "running" forever and its `flow.failed` webhook fires.
 * Returns false when the run had already ended (or another writer moved it first), or, with
 * `ifRunner`, when another process than that runner took the run up last (a resume elsewhere).
 */
export async function failRun(
  deps: { eventStore: EventStore; now: () => Date },
  executionId: string,
  failure: { code: string; message: string; principal: Principal; ifRunner?: string },
): Promise<boolean> {
  const { state, revision, recorded } = await loadStream(deps.eventStore, executionStream(executionId), execution);
  if (state.status !== 'running') return false;
  if (failure.ifRunner !== undefined && recorded.findLast((event) => event.metadata.runner !== undefined)?.metadata.runner !== failure.ifRunner) return false;
  const requestedAt = Date.parse(recorded[0]!.metadata.occurredAt);
  const recorder = createExecutionRecorder(deps, executionId, { principal: failure.principal, requestId: recorded[0]!.metadata.requestId, traceparent: recorded[0]!.metadata.traceparent }, { state, revision });
  try {
    await recorder.record({
      type: 'ExecutionFailed',
      data: { executionId, reason: 'error', code: failure.code, message: capFailureMessage(failure.message), detail: null, stepIndex: null, blockName: null, durationMs: Math.max(0, deps.now().getTime() - requestedAt) },
    });
    return true;
  } catch {
    return false; // the run moved meanwhile: whoever moved it decides its end
  }
}
