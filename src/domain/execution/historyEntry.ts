import type { ExecutionEvent } from './executionEvents.ts';

/** One event of a run's stream with the time its command happened (from the event's metadata). */
export interface HistoryEntry {
  event: ExecutionEvent;
  occurredAt: string;
}
