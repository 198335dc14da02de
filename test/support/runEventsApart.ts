import { splitJoinedStart } from '../../src/domain/execution/joinedStepStarts.ts';
import { type ExecutionEvent, ExecutionStepCompleted, ExecutionStepStarted } from '../../src/domain/execution/executionEvents.ts';
import { decodeRecorded } from '../../src/eventstore/decodeRecorded.ts';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';

/**
 * Recorded events of a run as its readers see them: a completion that tells its block's start
 * (joinedStepStarts.ts) as the start, then the completion. Whether a start went in its completion's
 * event depends on timing (it waits for the run's next append), so a test of what a run did reads
 * the run this way, not the raw log.
 */
export function eventsApart(recorded: readonly RecordedEvent[]): RecordedEvent[] {
  return recorded.flatMap((r) => {
    if (r.type !== 'ExecutionStepCompleted') return [r];
    const parts = splitJoinedStart(decodeRecorded(r) as ExecutionEvent, r.metadata.occurredAt);
    // Each part as its type's current version: the parts are decoded (upcast) already.
    const versionOf = (type: string) => (type === ExecutionStepStarted.type ? ExecutionStepStarted.version : ExecutionStepCompleted.version);
    return parts.length === 1 ? [r] : parts.map(({ event, occurredAt }) => ({ ...r, type: event.type, schemaVersion: versionOf(event.type), data: event.data, metadata: { ...r.metadata, occurredAt } }));
  });
}

/** Raw log rows' types, a completion that tells its block's start counted as the start and the completion. */
export function typesApart(rows: readonly { event_type: string; data: { started?: unknown } }[]): string[] {
  return rows.flatMap((r) => (r.event_type === 'ExecutionStepCompleted' && r.data.started !== undefined ? ['ExecutionStepStarted', 'ExecutionStepCompleted'] : [r.event_type]));
}
