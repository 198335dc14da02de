import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARED, preparingClient } from '../../src/database/preparedStatements.ts';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { appendToStream } from '../../src/eventstore/postgres/appendToStream.ts';
import { START_CURSOR, readAfter } from '../../src/eventstore/postgres/readEvents.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { applyBatch } from '../../src/projections/projectionBatch.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

/** What one session holds prepared: the pools here have one session each. */
const preparedTexts = async (pool: pg.Pool) => (await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement')).rows.map((r) => r.statement);

const onePool = (url: string, Client?: typeof pg.Client) => {
  const pool = new pg.Pool({ connectionString: url, max: 1, ...(Client ? { Client } : {}) });
  pool.on('error', () => undefined);
  return pool;
};

describe('statements prepared once per session', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await createTestRuntime('prepared_statements');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('names every statement that ends with the mark, however it is sent, answers each call, and names no other', async () => {
    const pool = onePool(t.database.url, preparingClient());
    const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
    try {
      const byKysely = () => sql<{ four: number }>`SELECT ${4}::int + ${0}::int AS four ${sql.raw(PREPARED)}`.execute(db);
      expect((await byKysely()).rows).toEqual([{ four: 4 }]);
      expect((await byKysely()).rows).toEqual([{ four: 4 }]);
      expect((await pool.query(`SELECT 1 AS one ${PREPARED}`)).rows).toEqual([{ one: 1 }]);
      // The pool's own callback form: client.query(text, values, callback).
      const two = await new Promise<unknown>((resolve, reject) => pool.query(`SELECT $1::int AS two ${PREPARED}`, [2], (error, result) => (error ? reject(error) : resolve(result.rows))));
      expect(two).toEqual([{ two: 2 }]);
      expect((await pool.query('SELECT 5 AS five')).rows).toEqual([{ five: 5 }]);
      const prepared = await preparedTexts(pool);
      expect(prepared).toHaveLength(3);
      expect(prepared).toEqual(expect.arrayContaining([`SELECT $1::int + $2::int AS four ${PREPARED}`, `SELECT 1 AS one ${PREPARED}`, `SELECT $1::int AS two ${PREPARED}`]));
    } finally {
      await db.destroy();
    }
  });

  it('names at most as many texts as it is allowed; the others are still answered, unnamed', async () => {
    const pool = onePool(t.database.url, preparingClient(2));
    try {
      for (const n of [1, 2, 3, 1]) expect((await pool.query(`SELECT ${n} AS n ${PREPARED}`)).rows).toEqual([{ n }]);
      expect(await preparedTexts(pool)).toEqual([`SELECT 1 AS n ${PREPARED}`, `SELECT 2 AS n ${PREPARED}`]);
    } finally {
      await pool.end();
    }
  });

  it("prepares a subscriber's read of the log past its cursor, a call of the log's own function", async () => {
    const pool = onePool(t.database.url, preparingClient());
    try {
      const metadata = { correlationId: 'c', causationId: null, principal: { kind: 'system' as const, id: 'test' }, occurredAt: new Date().toISOString() };
      await appendToStream(pool, 'prepared-reads', [1, 2].map((n) => ({ id: randomUUID(), type: 'Noted', schemaVersion: 1, data: { n }, metadata })), 'no_stream');
      const first = await readAfter(pool, START_CURSOR, 5);
      expect(first.events.length).toBeGreaterThan(0);
      const again = await readAfter(pool, START_CURSOR, 5);
      expect(again.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
      expect((await preparedTexts(pool)).filter((text) => text.includes('FROM seqflow_read_after('))).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it("prepares a projection batch's checkpoint read and move: a session that applied batches holds both, planned once", async () => {
    const pool = onePool(t.database.url, preparingClient());
    const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
    try {
      await db.insertInto('projection_checkpoints').values({ name: 'prepared-probe', position: 0 }).execute();
      const probe: Projection = { name: 'prepared-probe', handles: ['ApiKeyRevoked'], tables: [], apply: async () => undefined };
      const revoked = (position: number): RecordedEvent => ({
        id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
        streamId: `s-${position}`,
        revision: 1,
        position,
        type: 'ApiKeyRevoked',
        schemaVersion: 1,
        data: { keyId: `k${position}`, projectId: 'p' },
        metadata: { correlationId: 'c', causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt: '2026-11-29T00:00:00.000Z' },
        recordedAt: new Date('2026-11-29T00:00:00.000Z'),
        hash: null,
      });
      for (const position of [1, 2, 3]) expect(await applyBatch(db, [probe], new Map(), pino({ level: 'silent' }), position - 1, [revoked(position)], Date.now())).toBe(position);
      const prepared = await preparedTexts(pool);
      expect(prepared.filter((text) => /^\s*SELECT c\.name, c\.position FROM set_config/.test(text))).toHaveLength(1);
      expect(prepared.filter((text) => text.startsWith('update "projection_checkpoints" set "position"'))).toHaveLength(1);
      const { position } = await db.selectFrom('projection_checkpoints').select('position').where('name', '=', 'prepared-probe').executeTakeFirstOrThrow();
      expect(Number(position)).toBe(3);
    } finally {
      await db.destroy();
    }
  });
});
