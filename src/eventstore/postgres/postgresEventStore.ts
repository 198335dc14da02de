import type pg from 'pg';
import type { EventStore } from '../eventStore.ts';
import { appendToStream } from './appendToStream.ts';
import { type GroupCommitOptions, createGroupCommitter } from './groupCommit.ts';
import { type CatchUpTiming, catchUpSubscription } from './catchUpSubscription.ts';
import { migrateEventLog } from './migrateEventLog.ts';
import { headPosition, readAfter, readStream, readStreams, cursorAt, streamExists, streamHeads } from './readEvents.ts';
import { turnBatchedLookup } from '../../database/turnBatchedLookup.ts';
import { Wakeups } from './wakeups.ts';
import { joinedReads } from './joinedReads.ts';
import { type ReadRetries, retryingReads } from './retryingReads.ts';

export interface PostgresEventStoreOptions {
  pool: pg.Pool;
  /** For the LISTEN connection; defaults to the pool's own settings. */
  connectionString?: string;
  timing?: Partial<CatchUpTiming>;
  /** false: every append is its own round trip and commit (the bench's baseline). */
  groupCommit?: boolean | GroupCommitOptions;
  /** How reads lost with their connection are retried (how they wait, their jitter): the policy's, in real time, unless given. */
  readRetries?: Partial<ReadRetries>;
  /** How long whether another process listens is trusted before it is asked again (default 1 s; wakeups.ts). */
  listenerRecheckMs?: number;
}

export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore & { migrate(): Promise<void> } {
  const { pool } = options;
  const reads = retryingReads(pool, options.readRetries);
  const timing: CatchUpTiming = { pollIntervalMs: 500, horizonRetryMs: 2, horizonRetryMaxMs: 50, ...options.timing };
  const committer = options.groupCommit === false ? null : createGroupCommitter(pool, options.groupCommit === true ? {} : options.groupCommit);
  const subscribersRead = joinedReads((cursor, limit) => readAfter(reads, cursor, limit));
  // Whole streams asked for in one turn (a command loads its stream; a dispatcher with 32 deliveries in flight loads 32) go in one query.
  const wholeStreams = turnBatchedLookup((streamIds: string[]) => readStreams(reads, streamIds), 200);
  const wakeups = new Wakeups(pool, options.connectionString, (pool as unknown as { options: pg.ClientConfig }).options, options.listenerRecheckMs);

  return {
    kind: 'postgres',
    storesDataKeys: true,
    migrate: () => migrateEventLog(pool),
    async append(streamId, events, expected, options) {
      const { appended, ...result } = committer ? await committer.append(streamId, events, expected, options) : await appendToStream(pool, streamId, events, expected, options);
      if (appended) void wakeups.committed();
      return result;
    },
    readStream: async (streamId, readOptions) =>
      readOptions?.fromRevision || readOptions?.maxCount !== undefined ? readStream(reads, streamId, readOptions) : [...((await wholeStreams([streamId])).get(streamId) ?? [])],
    streamExists: (streamId) => streamExists(reads, streamId),
    streamHeads: (streamIds) => streamHeads(reads, streamIds),
    async readAll(from, limit) {
      const cursor = await cursorAt(reads, from);
      return (await readAfter(reads, cursor, limit)).events;
    },
    subscribe: (subscription) => catchUpSubscription(reads, subscribersRead, wakeups, timing, subscription),
    headPosition: () => headPosition(reads),
    async ping() {
      await pool.query('SELECT 1 FROM seqflow_events LIMIT 0');
    },
    close: () => wakeups.close(),
  };
}
