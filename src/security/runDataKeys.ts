import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { decryptSecret, encryptSecret } from './secretBox.ts';
import { newDataKey } from './runDataCipher.ts';

/**
 * The runs' data keys, each sealed under the master key in `run_data_keys`. Erasing a run sets its
 * row's key to NULL: from then on nothing sealed under it opens (PostgreSQL frees the old row version
 * at its next vacuum; backups keep it until they expire: docs/operations.md).
 *
 * Crash rules: a key is stored (committed) before anything sealed under it is appended, so the log
 * never holds text whose key was never written. Keys a process made are kept in a bounded cache for
 * sealing its own runs' later events; a stale entry there is harmless (what it seals after another
 * process erased the run opens with no stored key). Opening never uses that cache: an erasure counts
 * in every process at once.
 */
export type KeyState = Buffer | 'erased' | 'none';

export interface RunDataKeys {
  /** The key that seals a run's events: made and stored now if the run has none; `erased` once erased. */
  forSealing(executionId: string): Promise<Buffer | 'erased'>;
  /** The stored keys of these runs, read now (`none`: the run never had one, as runs recorded before keys). */
  forOpening(executionIds: readonly string[]): Promise<Map<string, KeyState>>;
  /** Removes a run's key for good (idempotent: the first erasure's time stays). */
  erase(executionId: string, at: Date): Promise<void>;
  /** When each of these runs' keys was erased (runs never erased are absent). */
  erasedAt(executionIds: readonly string[]): Promise<Map<string, Date>>;
}

const wrap = (key: Buffer, masterKey: Buffer) => {
  const box = encryptSecret(key.toString('base64'), masterKey);
  return `${box.iv}.${box.tag}.${box.ciphertext}`;
};
const unwrap = (text: string, masterKey: Buffer) => {
  const [iv = '', tag = '', ciphertext = ''] = text.split('.');
  return Buffer.from(decryptSecret({ iv, tag, ciphertext }, masterKey), 'base64');
};

export function createRunDataKeys(db: Kysely<ReadModels>, masterKey: Buffer, options: { cacheSize?: number } = {}): RunDataKeys {
  const made = new LRUCache<string, Buffer>({ max: options.cacheSize ?? 10_000 });
  // Keys asked for while a store is in flight go together in the next one: one statement for many runs.
  let waiting = new Map<string, { resolve: (key: Buffer | 'erased') => void; reject: (error: unknown) => void }[]>();
  let storing = false;

  async function store(batch: Map<string, { resolve: (key: Buffer | 'erased') => void; reject: (error: unknown) => void }[]>) {
    const ids = [...batch.keys()];
    try {
      const wrapped = ids.map(() => wrap(newDataKey(), masterKey));
      // On a conflict the no-op update returns the row that is there: another process's key, or NULL once erased.
      const { rows } = await sql<{ execution_id: string; wrapped_key: string | null }>`
        INSERT INTO run_data_keys (execution_id, wrapped_key)
        SELECT * FROM unnest(${ids}::text[], ${wrapped}::text[])
        ON CONFLICT (execution_id) DO UPDATE SET execution_id = EXCLUDED.execution_id
        RETURNING execution_id, wrapped_key`.execute(db);
      const stored = new Map(rows.map((r) => [r.execution_id, r.wrapped_key]));
      for (const [id, waiters] of batch) {
        const text = stored.get(id);
        const key = text ? unwrap(text, masterKey) : 'erased';
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
    forSealing(executionId) {
      const known = made.get(executionId);
      if (known) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const waiters = waiting.get(executionId) ?? [];
        waiters.push({ resolve, reject });
        waiting.set(executionId, waiters);
        if (!storing) void drain();
      });
    },

    async forOpening(executionIds) {
      const states = new Map<string, KeyState>(executionIds.map((id) => [id, 'none']));
      if (executionIds.length === 0) return states;
      const rows = await db.selectFrom('run_data_keys').select(['execution_id', 'wrapped_key']).where('execution_id', 'in', [...new Set(executionIds)]).execute();
      for (const row of rows) states.set(row.execution_id, row.wrapped_key ? unwrap(row.wrapped_key, masterKey) : 'erased');
      return states;
    },

    async erase(executionId, at) {
      made.delete(executionId);
      // A row even for a run that never had a key: whatever is sealed for it later reads as erased.
      await sql`
        INSERT INTO run_data_keys (execution_id, wrapped_key, erased_at) VALUES (${executionId}, NULL, ${at.toISOString()})
        ON CONFLICT (execution_id) DO UPDATE SET wrapped_key = NULL, erased_at = COALESCE(run_data_keys.erased_at, EXCLUDED.erased_at)`.execute(db);
    },

    async erasedAt(executionIds) {
      if (executionIds.length === 0) return new Map();
      const rows = await db.selectFrom('run_data_keys').select(['execution_id', 'erased_at']).where('execution_id', 'in', [...new Set(executionIds)]).where('erased_at', 'is not', null).execute();
      return new Map(rows.map((r) => [r.execution_id, r.erased_at!]));
    },
  };
}
