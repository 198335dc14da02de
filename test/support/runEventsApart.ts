import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { decodeRecorded } from '../../src/eventstore/decodeRecorded.ts';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { runEventsApart } from '../../src/execution/runEventsApart.ts';

/**
 * Recorded events of a run as its readers see them (src/execution/runEventsApart.ts). Whether a
 * start went in its completion's event depends on timing (it waits for the run's next append), so a
 * test of what a run did reads the run this way, not the raw log.
 */
export const eventsApart = (recorded: readonly RecordedEvent[]): RecordedEvent[] => runEventsApart(recorded, recorded.map((r) => decodeRecorded(r) as ExecutionEvent)).recorded;

/** Raw log rows' types, a completion that tells its block's start counted as the start and the completion. */
export function typesApart(rows: readonly { event_type: string; data: { started?: unknown } }[]): string[] {
  return rows.flatMap((r) => (r.event_type === 'ExecutionStepCompleted' && r.data.started !== undefined ? ['ExecutionStepStarted', 'ExecutionStepCompleted'] : [r.event_type]));
}
