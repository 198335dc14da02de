import { isStorageFull } from '../database/storageFull.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { HealthNotes } from '../health/healthNotes.ts';

export const STORAGE_FULL = 'DATABASE_STORAGE_FULL';

/**
 * The event store, with its appends watched for a full database: an append refused for want of room
 * raises DATABASE_STORAGE_FULL in /health, and the next append that succeeds clears it.
 */
export function watchStorage(store: EventStore, notes: Pick<HealthNotes, 'raise' | 'clear'>): EventStore {
  return {
    ...store,
    async append(streamId, events, expected, options) {
      try {
        const result = await store.append(streamId, events, expected, options);
        notes.clear(STORAGE_FULL, 'event-log');
        return result;
      } catch (error) {
        if (isStorageFull(error)) notes.raise(STORAGE_FULL, 'event-log', 'the database has no room to write (disk full): nothing can be recorded until an operator makes room');
        throw error;
      }
    },
  };
}
