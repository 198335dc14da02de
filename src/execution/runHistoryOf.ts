import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import { type RunHistory, foldRunHistory } from '../domain/execution/runHistory.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';

/** A run's history from its stream as loaded (decoded events beside the recorded ones, which carry the times). */
export const runHistoryOf = (loaded: { recorded: RecordedEvent[]; events: readonly ExecutionEvent[] }): RunHistory =>
  foldRunHistory(loaded.events.map((event, i) => ({ event, occurredAt: loaded.recorded[i]!.metadata.occurredAt })));
