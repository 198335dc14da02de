import { LRUCache } from 'lru-cache';
import { createBoundedMap } from '../collections/boundedMap.ts';
import { turnBatchedLookup } from '../database/turnBatchedLookup.ts';
import { createRandomPool } from './randomPool.ts';
import { type DataKey, newDataKey } from './runDataCipher.ts';
import { unwrapDataKey, wrapDataKey } from './dataKeyWrap.ts';

/** What the keys are kept with: a PostgreSQL pool (node-postgres), the read models' own. */
export interface Queryable {
  query<R extends object>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * The runs' data keys, each sealed under the master key in `run_data_keys`. Erasing a run sets its
 * row's key to NULL: from then on nothing sealed under it opens (PostgreSQL frees the old row version
 * at its next vacuum; backups keep it until they expire: docs/operations.md).
 *
 * Crash rules: a key is stored (committed) before anything sealed under it is appended, or in the
 * same transaction (a new run's key with its first events, where the log is PostgreSQL: `forNewRun`),
 * so the log never holds text whose key was never written. With the log in the same PostgreSQL database
 * (`flushedWithLog`), the key's commit does not wait for the disk: PostgreSQL flushes its WAL in
 * order, so the first durable append sealed under the key makes the key durable too, and a crash
 * before it loses both (the cost of a second fsync per run, measured: half the /execute throughput).
 * With KurrentDB the key's commit waits for the disk. A new run's key is used for nothing else until
 * the append that stores it has committed (`appended`): two processes starting the same run id (a
 * schedule's firing) each make a key, and only the winner's is stored, so the loser's must never
 * seal anything, not even while its own append is in flight. Keys a process stored are kept in a
 * bounded cache for sealing its own runs' later events; a stale entry there is harmless (what it
 * seals after another process erased the run opens with no stored key). Opening uses that cache only for readers that
 * apply the erasure event themselves (the projections); for every other reader an erasure counts in
 * every process at once.
 */
export type KeyState = DataKey | 'erased' | 'none';

export interface RunDataKeys {
  /**
   * A new run's key, for its first events, with its sealed form for the log adapter to store in the
   * same transaction (AppendOptions.dataKeys). The same key again while this process remembers it,
   * so a retried append seals to the same bytes. Pending until `appended`: `madeHere` and
   * `forSealing` do not give it out before.
   */
  forNewRun(executionId: string): { key: DataKey; wrappedKey: string };
  /** The append holding a new run's key (forNewRun) committed: the key is the run's, for its later events. */
  appended(executionId: string): void;
  /** The key this process made for a run, while it keeps it: a run's later events are sealed with it at once. */
  madeHere(executionId: string): DataKey | undefined;
  /** The key that seals a run's events: made and stored now if the run has none; `erased` once erased. */
  forSealing(executionId: string): Promise<DataKey | 'erased'>;
  /**
   * The stored keys of these runs, read now (`none`: the run never had one, as runs recorded before
   * keys). With `madeHere`, the keys this process made are taken from its memory instead, even if
   * another process has erased the run since: only for readers that apply the erasure event after.
   */
  forOpening(executionIds: readonly string[], options?: { madeHere?: boolean }): Promise<Map<string, KeyState>>;
  /** Removes a run's key for good (idempotent: the first erasure's time stays). */
  erase(executionId: string, at: Date): Promise<void>;
  /** Forgets every key this process keeps (the log watch restarted: an erasure may have gone unseen). */
  forgetAll(): void;
  /**
   * Forgets the key `forNewRun` made for a run whose first append failed its expected revision:
   * another process started the run under the same id (a schedule's firing), and its key, not this
   * one, is stored. The next `forSealing` reads that one.
   */
  forget(executionId: string): void;
}

/**
 * `trusted`: whether the keys this process keeps may be used without asking the table, i.e. whether
 * the log watch that makes every process forget an erased run's key (the runtime wires it) is
 * current; while it is not, every key is read from the table, where an erasure shows at once.
 */
export function createRunDataKeys(db: Queryable, masterKey: Buffer, options: { cacheSize?: number; flushedWithLog: boolean; trusted?: () => boolean }): RunDataKeys {
  const trusted = options.trusted ?? (() => true);
  const random = createRandomPool();
  const commitWithoutWaiting = options.flushedWithLog ? "set_config('synchronous_commit', 'off', true) AS s," : '';
  // The keys this process made, oldest out first: a run's later events come soon after its first.
  const made = createBoundedMap<string, DataKey>(options.cacheSize ?? 10_000);
  // New runs' keys whose first append has not committed yet: only that append (or its retry) uses them.
  const pending = createBoundedMap<string, DataKey>(options.cacheSize ?? 10_000);
  // Opened keys by their sealed text: a read still asks the table (an erased key is NULL there), but
  // does not pay a cipher call for a key it opened before.
  const opened = new LRUCache<string, DataKey>({ max: options.cacheSize ?? 10_000 });
  const unwrapOnce = (text: string, executionId: string) => {
    const known = opened.get(text);
    if (known) return known;
    const key = unwrapDataKey(text, executionId, masterKey);
    opened.set(text, key);
    return key;
  };
  // The stored keys of runs, read for openers asking in one turn in one statement (NULL: erased).
  const storedKeys = turnBatchedLookup(async (ids: string[]) => {
    const { rows } = await db.query<{ execution_id: string; wrapped_key: string | null }>('SELECT execution_id, wrapped_key FROM run_data_keys WHERE execution_id = ANY($1::text[])', [ids]);
    return new Map(rows.map((row) => [row.execution_id, row.wrapped_key]));
  });
  // Keys asked for while a store is in flight go together in the next one: one statement for many runs.
  let waiting = new Map<string, { resolve: (key: DataKey | 'erased') => void; reject: (error: unknown) => void }[]>();
  let storing = false;

  async function store(batch: Map<string, { resolve: (key: DataKey | 'erased') => void; reject: (error: unknown) => void }[]>) {
    const ids = [...batch.keys()];
    try {
      const wrapped = ids.map((id) => wrapDataKey(newDataKey(random), id, masterKey, random));
      // On a conflict the no-op update returns the row that is there: another process's key, or NULL once erased.
      const { rows } = await db.query<{ execution_id: string; wrapped_key: string | null }>(
        `INSERT INTO run_data_keys (execution_id, wrapped_key)
         SELECT k.id, k.wrapped FROM ${commitWithoutWaiting} unnest($1::text[], $2::text[]) AS k(id, wrapped)
         ON CONFLICT (execution_id) DO UPDATE SET execution_id = EXCLUDED.execution_id
         RETURNING execution_id, wrapped_key`,
        [ids, wrapped],
      );
      const stored = new Map(rows.map((r) => [r.execution_id, r.wrapped_key]));
      for (const [id, waiters] of batch) {
        const text = stored.get(id);
        const key = text ? unwrapOnce(text, id) : 'erased';
        if (key !== 'erased') made.set(id, key);
        for (const w of waiters) w.resolve(key);
      }
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
    }
  }

  async function drain() {
    storing = true;
    while (waiting.size > 0) {
      const batch = waiting;
      waiting = new Map();
      await store(batch);
    }
    storing = false;
  }

  return {
    forNewRun(executionId) {
      const key = made.get(executionId) ?? pending.get(executionId) ?? newDataKey(random);
      if (made.get(executionId) === undefined) pending.set(executionId, key);
      // Its own projections open the run's events with `made` (forOpening's madeHere): nothing to unwrap.
      return { key, wrappedKey: wrapDataKey(key, executionId, masterKey, random) };
    },

    appended(executionId) {
      const key = pending.get(executionId);
      if (key === undefined) return;
      pending.delete(executionId);
      made.set(executionId, key);
    },

    madeHere: (executionId) => (trusted() ? made.get(executionId) : undefined),

    forSealing(executionId) {
      const known = trusted() ? made.get(executionId) : undefined;
      if (known) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const waiters = waiting.get(executionId) ?? [];
        waiters.push({ resolve, reject });
        waiting.set(executionId, waiters);
        if (!storing) void drain();
      });
    },

    async forOpening(executionIds, options = {}) {
      const states = new Map<string, KeyState>(executionIds.map((id) => [id, 'none']));
      const asked = new Set<string>();
      for (const id of executionIds) {
        const own = options.madeHere && trusted() ? made.get(id) : undefined;
        if (own) states.set(id, own);
        else asked.add(id);
      }
      if (asked.size === 0) return states;
      const stored = await storedKeys([...asked]);
      for (const id of asked) {
        const text = stored.get(id);
        if (text !== undefined) states.set(id, text ? unwrapOnce(text, id) : 'erased');
      }
      return states;
    },

    forget(executionId) {
      pending.delete(executionId);
      made.delete(executionId);
    },

    forgetAll() {
      made.clear();
    },

    async erase(executionId, at) {
      pending.delete(executionId);
      made.delete(executionId);
      // A row even for a run that never had a key: whatever is sealed for it later reads as erased.
      await db.query(
        `INSERT INTO run_data_keys (execution_id, wrapped_key, erased_at) VALUES ($1, NULL, $2)
         ON CONFLICT (execution_id) DO UPDATE SET wrapped_key = NULL, erased_at = COALESCE(run_data_keys.erased_at, EXCLUDED.erased_at)`,
        [executionId, at.toISOString()],
      );
    },
  };
}
