import { splitJoinedStart } from '../domain/execution/joinedStepStarts.ts';
import { type ExecutionEvent, ExecutionStepCompleted, ExecutionStepStarted } from '../domain/execution/executionEvents.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';

/**
 * A run's recorded events (and their decoded forms, index by index) as its readers see them: a
 * completion that tells its block's start (joinedStepStarts.ts) as the start, with the time it was
 * noted, then the completion. Each part is a record of its own type at that type's current version
 * (its data is decoded, upcast already); every other event is kept as it is.
 */
export function runEventsApart(recorded: readonly RecordedEvent[], events: readonly ExecutionEvent[]): { recorded: RecordedEvent[]; events: ExecutionEvent[] } {
  const apart = recorded.flatMap((r, i) => {
    const parts = splitJoinedStart(events[i]!, r.metadata.occurredAt);
    if (parts.length === 1) return [{ recorded: r, event: events[i]! }];
    return parts.map(({ event, occurredAt }) => ({
      recorded: { ...r, type: event.type, schemaVersion: event.type === ExecutionStepStarted.type ? ExecutionStepStarted.version : ExecutionStepCompleted.version, data: event.data, metadata: { ...r.metadata, occurredAt } },
      event,
    }));
  });
  return { recorded: apart.map((a) => a.recorded), events: apart.map((a) => a.event) };
}
