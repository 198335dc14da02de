import { BACKWARDS, END, KurrentDBClient } from '@kurrent/kurrentdb-client';
import type { EventStore } from '../eventStore.ts';
import { appendToKurrentDb, lastOf } from './kurrentDbAppend.ts';
import { kurrentDbHeadPosition, kurrentDbStreamExists, readKurrentDbLog, readKurrentDbStream, subscribeToKurrentDb } from './kurrentDbRecords.ts';

/**
 * KurrentDB adapter. Positions are the commit positions of `$all` (KurrentDB assigns every event its
 * own commit position, equal to its prepare position). Appends are idempotent by event id on the
 * server. The expected state is passed as `streamState`: the client's older `expectedRevision`
 * option is silently ignored by @kurrent/kurrentdb-client.
 */
export function createKurrentDbEventStore(connectionString: string): EventStore {
  const client = KurrentDBClient.connectionString(connectionString);
  return {
    kind: 'kurrentdb',
    append: (streamId, events, expected) => appendToKurrentDb(client, streamId, events, expected),
    async streamHeads(streamIds) {
      const heads = new Map<string, { revision: number; hash: string | null }>();
      for (const streamId of streamIds) {
        const last = await lastOf(client, streamId);
        if (last) heads.set(streamId, last);
      }
      return heads;
    },
    readStream: (streamId, options) => readKurrentDbStream(client, streamId, options),
    streamExists: (streamId) => kurrentDbStreamExists(client, streamId),
    readAll: (from, limit) => readKurrentDbLog(client, from, limit),
    subscribe: (options) => subscribeToKurrentDb(client, options),
    headPosition: () => kurrentDbHeadPosition(client),
    async ping() {
      for await (const _ of client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 })) break;
    },
    close: () => client.dispose(),
  };
}
