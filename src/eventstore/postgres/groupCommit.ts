import type pg from 'pg';
import { contentHash } from '../../domain/audit/eventHash.ts';
import { type AppendOptions, type AppendResult, type EventToAppend, type ExpectedRevision, WrongExpectedRevision } from '../eventStore.ts';
import { PREPARED } from '../../database/preparedStatements.ts';
import { EXPECTED_CODES, appendToStream, storingKeys } from './appendToStream.ts';

export interface GroupCommitOptions {
  /** Appends sent in one call at most (default 500). */
  maxAppendsPerBatch?: number;
  /** Events sent in one call at most (default 5,000); a larger single append goes alone. */
  maxEventsPerBatch?: number;
  /** Calls in flight at once (default 2: the best of 1-16 on the 2-core bench machine; PostgreSQL works on several transactions at a time). */
  maxInFlight?: number;
}

type Appended = AppendResult & { appended: boolean };

interface Pending {
  streamId: string;
  events: EventToAppend[];
  expected: ExpectedRevision;
  options: AppendOptions;
  resolve: (result: Appended) => void;
  reject: (error: unknown) => void;
}

/**
 * A write-combining appender. While `maxInFlight` commits are in flight, the appends that arrive
 * wait; when one is done they go together: one round trip, one transaction, one commit
 * (`seqflow_append_batch`), each append with its own expected revision and its own result, so a
 * conflict fails only that append. An append that finds a free slot goes at once, alone, as before.
 *
 * Durability is the strictest asked for in the batch: one durable append makes the whole commit wait
 * for the disk. If the call fails as a whole (a partly duplicated append, a deadlock, a lost
 * connection), each append of the batch is made again on its own and answers for itself: the
 * batch's transaction rolled back, so nothing of it is in the log.
 */
export function createGroupCommitter(pool: pg.Pool, options: GroupCommitOptions = {}) {
  const maxAppends = options.maxAppendsPerBatch ?? 500;
  const maxEvents = options.maxEventsPerBatch ?? 5000;
  const maxInFlight = options.maxInFlight ?? 2;
  const queue: Pending[] = [];
  let inFlight = 0;

  function take(): Pending[] {
    const batch: Pending[] = [];
    let events = 0;
    while (queue.length > 0 && batch.length < maxAppends) {
      const next = queue[0]!;
      if (batch.length > 0 && events + next.events.length > maxEvents) break;
      batch.push(queue.shift()!);
      events += next.events.length;
    }
    return batch;
  }

  /** Starts calls while there is room; appends wait in the queue only while every call slot is busy. */
  function pump() {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = take();
      inFlight++;
      void (batch.length === 1 ? alone(batch[0]!) : together(batch)).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  async function alone(p: Pending) {
    try {
      p.resolve(await appendToStream(pool, p.streamId, p.events, p.expected, p.options));
    } catch (error) {
      p.reject(error);
    }
  }

  async function together(unordered: Pending[]) {
    // Stream rows are locked in one order (by stream id; a stable sort keeps one stream's appends in
    // their order), so two batches in flight at once never wait on each other in a cycle.
    const batch = [...unordered].sort((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0));
    let rows: { append_index: number; outcome: string; next_revision: string; last_position: string | null }[];
    try {
      rows = (await pool.query(batchStatement(batch), batchParams(batch))).rows;
    } catch {
      // Rolled back as a whole: each append again on its own, answering for itself.
      for (const p of batch) await alone(p);
      return;
    }
    for (const row of rows) {
      const p = batch[row.append_index - 1]!;
      if (row.outcome === 'conflict') p.reject(new WrongExpectedRevision(p.streamId, p.expected, Number(row.next_revision)));
      else p.resolve({ nextExpectedRevision: Number(row.next_revision), position: Number(row.last_position), appended: row.outcome === 'appended' });
    }
  }

  return {
    append(streamId: string, events: EventToAppend[], expected: ExpectedRevision, appendOptions: AppendOptions = {}): Promise<Appended> {
      if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
      return new Promise<Appended>((resolve, reject) => {
        queue.push({ streamId, events, expected, options: appendOptions, resolve, reject });
        pump();
      });
    },
  };
}

const BATCH_CALL = 'seqflow_append_batch($1::text[], $2::bigint[], $3::integer[], $4::uuid[], $5::text[], $6::integer[], $7::jsonb[], $8::jsonb[], $9::text[])';

/**
 * Only a batch of deferred appends commits without waiting for the disk (set_config applies to this
 * statement's transaction). The batch's data keys go in the same statement (storingKeys).
 */
function batchStatement(batch: Pending[]) {
  const select = batch.every((p) => p.options.durability === 'deferred') ? `SELECT a.* FROM set_config('synchronous_commit', 'off', true) s, ${BATCH_CALL} a` : `SELECT * FROM ${BATCH_CALL}`;
  // PREPARED, as appendToStream's: four variants, each planned once per session.
  return `${batch.some((p) => (p.options.dataKeys?.length ?? 0) > 0) ? `${storingKeys(10)} ${select}` : select} ${PREPARED}`;
}

function batchParams(batch: Pending[]) {
  const events = batch.flatMap((p) => p.events.map((e) => ({ streamId: p.streamId, e })));
  const keys = batch.flatMap((p) => p.options.dataKeys ?? []);
  return [
    batch.map((p) => p.streamId),
    batch.map((p) => (typeof p.expected === 'number' ? p.expected : EXPECTED_CODES[p.expected])),
    batch.map((p) => p.events.length),
    events.map(({ e }) => e.id),
    events.map(({ e }) => e.type),
    events.map(({ e }) => e.schemaVersion),
    events.map(({ e }) => JSON.stringify(e.data)),
    events.map(({ e }) => JSON.stringify(e.metadata)),
    events.map(({ streamId, e }) => contentHash({ streamId, id: e.id, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata })),
    ...(keys.length > 0 ? [keys.map((k) => k.executionId), keys.map((k) => k.wrappedKey)] : []),
  ];
}
