import { type ExecutionEvent, executionStream } from '../domain/execution/executionEvents.ts';
import { type RunHistory, foldRunHistory } from '../domain/execution/runHistory.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';

/** A run's history from its stream as loaded (decoded events beside the recorded ones, which carry the times). */
export const runHistoryOf = (loaded: { recorded: readonly Pick<RecordedEvent, 'metadata'>[]; events: readonly ExecutionEvent[] }): RunHistory =>
  foldRunHistory(loaded.events.map((event, i) => ({ event, occurredAt: loaded.recorded[i]!.metadata.occurredAt })));

/** Reads a run's stream, decodes it through the upcasters and folds its history (an unknown run has an empty one). */
export async function readRunHistory(eventStore: EventStore, executionId: string) {
  const recorded = await eventStore.readStream(executionStream(executionId));
  // An execution stream holds execution events only: the decider that wrote them accepts no others.
  const events = recorded.map((r) => decodeRecorded(r) as ExecutionEvent);
  return { recorded, events, history: runHistoryOf({ recorded, events }) };
}
