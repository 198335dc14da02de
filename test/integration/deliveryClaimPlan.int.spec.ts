import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateReadModels } from '../../src/projections/migrateReadModels.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';
import { createDeliveryClaims, dueDeliveries } from '../../src/workers/deliveryClaims.ts';
import { type TestDatabase, createTestDatabase } from '../support/testDatabase.ts';

const BACKLOG = 3000;
const HELD = 10;
const LIMIT = 32;
const noHostsFull = { hosts: [], rooms: [], perHost: 64 };

/**
 * A dispatcher's claim against a backlog (a receiver that was down, a burst of runs): it takes the
 * oldest due deliveries nobody holds, and reads about as many rows as it takes. Reading the whole
 * backlog on every claim made a drain's database time grow with the backlog it drains.
 */
describe("a dispatcher's claim over a backlog of deliveries", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<ReadModels>;
  const created = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  // Oldest first: the due order of the pending ones.
  const pending = Array.from({ length: BACKLOG }, () => randomUUID());

  beforeAll(async () => {
    database = await createTestDatabase('delivery_claim_plan');
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    pool.on('error', () => undefined); // dropping the database at the end terminates idle connections: not news
    db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
    await migrateReadModels(db);
    // Analyzed only when the test says so.
    await sql`ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)`.execute(db);
    const row = (id: string, i: number, status: string, nextAttemptAt: string | null) => ({
      id,
      organization_id: 'org',
      execution_id: randomUUID(),
      event: 'flow.completed',
      status,
      attempts: status === 'pending' ? 0 : 1,
      response_status: null,
      error_excerpt: null,
      created_at: created(i),
      next_attempt_at: nextAttemptAt,
      updated_at: created(i),
      receiver_host: 'receiver.test:443',
    });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const rows = [
      ...pending.map((id, i) => row(id, i, 'pending', null)),
      // Retries not due for an hour, and deliveries long finished: neither is claimed.
      ...Array.from({ length: 500 }, (_, i) => row(randomUUID(), i, 'failed_retry', later)),
      ...Array.from({ length: 2000 }, (_, i) => row(randomUUID(), i, 'delivered', null)),
    ];
    // In chunks: a statement takes at most 65,535 parameters.
    for (let i = 0; i < rows.length; i += 1000) await db.insertInto('webhook_deliveries').values(rows.slice(i, i + 1000)).execute();
    // The oldest few are held by a live dispatcher elsewhere.
    await db
      .insertInto('delivery_leases')
      .values(pending.slice(0, HELD).map((id) => ({ delivery_id: id, owner: 'elsewhere', expires_at: later, claims: 1 })))
      .execute();
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  /**
   * The rows of webhook_deliveries and of its indexes a claim's pick read (returned by scans, fetched
   * from the table), from PostgreSQL's counters for the transaction, whatever plan it ran; the
   * transaction is rolled back, and its locks with it.
   */
  const rowsRead = () =>
    db
      .transaction()
      .execute(async (trx) => {
        await sql`${dueDeliveries(LIMIT, noHostsFull, [])} SELECT id FROM candidate`.execute(trx);
        const { rows } = await sql<{ read: string }>`
          SELECT sum(pg_stat_get_xact_tuples_returned(c.oid) + pg_stat_get_xact_tuples_fetched(c.oid)) AS read
            FROM pg_class c WHERE c.oid = 'webhook_deliveries'::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'webhook_deliveries'::regclass)`.execute(trx);
        throw Object.assign(new Error('roll back'), { read: Number(rows[0]!.read) });
      })
      .catch((error: { read?: number }) => {
        if (error.read === undefined) throw error;
        return error.read;
      });

  // A backlog comes in a burst, before autovacuum has looked at the table: its statistics still say
  // it is empty. Then with them, as autovacuum gathers them once a table has changed by a tenth.
  it('reads about as many deliveries as it takes, not the backlog, before the statistics know of it and after', async () => {
    const { rows } = await sql<{ analyzed: boolean }>`SELECT last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`.execute(db);
    expect(rows[0]!.analyzed).toBe(false);
    const before = await rowsRead();
    await sql`ANALYZE webhook_deliveries`.execute(db);
    const after = await rowsRead();
    // The limit's worth plus the held ones, read and passed over, each counted at most four times
    // (its index entry and its row, each returned and fetched): far from the backlog.
    for (const read of [before, after]) {
      expect(read).toBeGreaterThanOrEqual(LIMIT + HELD);
      expect(read).toBeLessThanOrEqual(4 * (LIMIT + HELD));
    }
  });

  it('takes the oldest due deliveries nobody holds, and the next claim the next ones', async () => {
    const claims = createDeliveryClaims(db, { owner: 'here', leaseMs: 60_000 });
    const first = await claims.claim(LIMIT, noHostsFull);
    expect(first.map((d) => d.id).sort()).toEqual(pending.slice(HELD, HELD + LIMIT).sort());
    expect(new Set(first.map((d) => d.host))).toEqual(new Set(['receiver.test:443']));
    const second = await claims.claim(LIMIT, noHostsFull);
    expect(second.map((d) => d.id).sort()).toEqual(pending.slice(HELD + LIMIT, HELD + 2 * LIMIT).sort());
  });
});
