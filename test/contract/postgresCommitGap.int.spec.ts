import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { poolCountingLogReads } from '../support/logReadCounter.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

const metadata = () => JSON.stringify({ correlationId: randomUUID(), causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt: new Date().toISOString() });

describe('PostgreSQL event log: concurrentCommitGap, strangers\' transactions and transactionIdDigitBoundary', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let store: ReturnType<typeof createPostgresEventStore>;
  let counted: ReturnType<typeof poolCountingLogReads>;

  /** Resolves once subscribers have read the log `n` more times. */
  const afterLogReads = async (n: number) => {
    const target = counted.logReads + n;
    for (let i = 0; i < 1000 && counted.logReads < target; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(counted.logReads).toBeGreaterThanOrEqual(target);
  };

  beforeAll(async () => {
    database = await createTestDatabase('gap');
    counted = poolCountingLogReads(database.url);
    pool = counted.pool;
    store = createPostgresEventStore({ pool, connectionString: database.url, timing: { pollIntervalMs: 50 } });
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await database.drop();
  });

  it('holds back a later commit until an earlier position commits, then delivers both in order', async () => {
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribe({ from: 0, handler: async (events) => void seen.push(...events) });

    // Writer 1 takes the lower position inside a transaction and does not commit yet.
    const slow = await pool.connect();
    await slow.query('BEGIN');
    const slowId = randomUUID();
    const { rows } = await slow.query(
      `SELECT * FROM seqflow_append('slow', -1, $1::uuid[], ARRAY['Slow'], ARRAY[1], ARRAY['{}'::jsonb], ARRAY[$2::jsonb], ARRAY[$3])`,
      [[slowId], metadata(), 'a'.repeat(64)],
    );
    const slowPosition = Number(rows[0].last_position);

    // Writer 2 takes a higher position and commits first.
    const fast = await store.append('fast', [{ id: randomUUID(), type: 'Fast', schemaVersion: 1, data: {}, metadata: JSON.parse(metadata()) }], 'no_stream');
    expect(fast.position).toBeGreaterThan(slowPosition);

    // The committed later event is in the table, but the subscriber must not pass the open gap:
    // it reads the log several times after that commit and delivers nothing.
    await afterLogReads(3);
    expect(seen).toEqual([]);
    expect(await store.readAll(0, 100)).toEqual([]);

    await slow.query('COMMIT');
    slow.release();
    for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await subscription.stop();

    expect(seen.map((e) => [e.type, e.position])).toEqual([
      ['Slow', slowPosition],
      ['Fast', fast.position],
    ]);
  });

  it('delivers a later commit once an earlier open transaction rolls back', async () => {
    const from = await store.headPosition();
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribe({ from, handler: async (events) => void seen.push(...events) });

    const aborted = await pool.connect();
    await aborted.query('BEGIN');
    await aborted.query(
      `SELECT * FROM seqflow_append('aborted', -1, $1::uuid[], ARRAY['Aborted'], ARRAY[1], ARRAY['{}'::jsonb], ARRAY[$2::jsonb], ARRAY[$3])`,
      [[randomUUID()], metadata(), 'a'.repeat(64)],
    );
    const kept = await store.append('kept', [{ id: randomUUID(), type: 'Kept', schemaVersion: 1, data: {}, metadata: JSON.parse(metadata()) }], 'no_stream');
    await afterLogReads(3);
    expect(seen).toEqual([]);

    await aborted.query('ROLLBACK');
    aborted.release();
    for (let i = 0; i < 100 && seen.length < 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await subscription.stop();
    expect(seen.map((e) => [e.type, e.position])).toEqual([['Kept', kept.position]]);
  });

  it('starts a `now` subscription below an append still in flight, so that append comes once it commits', async () => {
    // The in-flight append holds a lower position than the head: starting from the head would miss it.
    const slow = await pool.connect();
    await slow.query('BEGIN');
    const { rows } = await slow.query(
      `SELECT * FROM seqflow_append('in-flight', -1, $1::uuid[], ARRAY['InFlight'], ARRAY[1], ARRAY['{}'::jsonb], ARRAY[$2::jsonb], ARRAY[$3])`,
      [[randomUUID()], metadata(), 'a'.repeat(64)],
    );
    const inFlightPosition = Number(rows[0].last_position);
    const head = await store.append('committed-first', [{ id: randomUUID(), type: 'CommittedFirst', schemaVersion: 1, data: {}, metadata: JSON.parse(metadata()) }], 'no_stream');
    expect(head.position).toBeGreaterThan(inFlightPosition);

    const seen: RecordedEvent[] = [];
    const subscription = store.subscribe({ from: 'now', handler: async (events) => void seen.push(...events) });
    await subscription.started;
    await slow.query('COMMIT');
    slow.release();
    for (let i = 0; i < 100 && !seen.some((e) => e.type === 'InFlight'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await subscription.stop();
    expect(seen.map((e) => [e.type, e.position])).toContainEqual(['InFlight', inFlightPosition]);
  });

  it('is not held back by a transaction of another database, nor by a write of this one that is not an append', async () => {
    // Strangers: an open transaction with an id in another database of the server, and one here.
    const other = await createTestDatabase('gap_stranger');
    const strangers = [new pg.Client({ connectionString: other.url }), new pg.Client({ connectionString: database.url })];
    try {
      for (const stranger of strangers) {
        await stranger.connect();
        await stranger.query('BEGIN');
        await stranger.query('SELECT pg_current_xact_id()');
      }
      const from = await store.headPosition();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribe({ from, handler: async (events) => void seen.push(...events) });
      const appended = await store.append('after-strangers', [{ id: randomUUID(), type: 'AfterStrangers', schemaVersion: 1, data: {}, metadata: JSON.parse(metadata()) }], 'no_stream');
      for (let i = 0; i < 250 && seen.length < 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      await subscription.stop();
      expect(seen.map((e) => [e.type, e.position])).toEqual([['AfterStrangers', appended.position]]);
      expect((await store.readAll(from, 10)).map((e) => e.position)).toEqual([appended.position]);
    } finally {
      for (const stranger of strangers) await stranger.end();
      await other.drop();
    }
  });

  it('refuses an append made after another write of the same transaction (readers could not wait for it)', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('CREATE TEMP TABLE before_append (x int) ON COMMIT DROP');
      await client.query('INSERT INTO before_append VALUES (1)');
      await expect(
        client.query(`SELECT * FROM seqflow_append('late', -1, $1::uuid[], ARRAY['Late'], ARRAY[1], ARRAY['{}'::jsonb], ARRAY[$2::jsonb], ARRAY[$3])`, [[randomUUID()], metadata(), 'a'.repeat(64)]),
      ).rejects.toThrow(/first write of its transaction/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('orders by transaction id numerically across a digit boundary (9 before 10), so no event is read twice', async () => {
    // A real cluster crosses 999 -> 1000 early in its life; text order would put "10" before "9".
    for (const [tx, stream] of [['9', 'nine'], ['10', 'ten']] as const) {
      await pool.query(
        `INSERT INTO seqflow_events (global_position, event_id, stream_id, stream_revision, event_type, schema_version, data, metadata, transaction_id, content_hash, chain_hash)
         VALUES (nextval('seqflow_event_position'), $1, $2, 0, 'Boundary', 1, '{}', $3, $4::xid8, '', '')`,
        [randomUUID(), `boundary-${stream}`, metadata(), tx],
      );
    }
    // Both rows sit below the horizon, ahead of everything appended before (their transaction ids are tiny).
    const all = await store.readAll(0, 1000);
    const boundary = all.filter((e) => e.type === 'Boundary').map((e) => e.streamId);
    expect(boundary).toEqual(['boundary-nine', 'boundary-ten']);

    // Read by a process started after the rows were written: rows can only be written below the horizon
    // by forging their transaction ids, as here, and `store` keeps what its subscribers read before (keptReads.ts).
    const started = createPostgresEventStore({ pool, connectionString: database.url, timing: { pollIntervalMs: 50 } });
    const seen: RecordedEvent[] = [];
    const subscription = started.subscribe({ from: 0, batchSize: 1, handler: async (events) => void seen.push(...events) });
    for (let i = 0; i < 200 && seen.length < all.length; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.stop();
    await started.close();
    expect(seen.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
  });
});
