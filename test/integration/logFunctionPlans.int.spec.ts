import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateEventLog } from '../../src/eventstore/postgres/migrateEventLog.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

/**
 * The log's functions are called for every append and every subscriber read: PostgreSQL must not
 * plan their statements again on every call (planning was some 12% of its CPU on the `/execute`
 * benchmarks before, see docs/performance.md).
 */
describe("the event log's functions keep their plans between calls", () => {
  let database: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase('log_function_plans');
    pool = new pg.Pool({ connectionString: database.url });
    pool.on('error', () => undefined); // dropping the database at the end terminates idle connections: not news
    await migrateEventLog(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  const functionOf = async (name: string) => {
    const { rows } = await pool.query<{ language: string; config: string[] | null }>(
      'SELECT l.lanname AS language, p.proconfig AS config FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.proname = $1',
      [name],
    );
    expect(rows).toHaveLength(1);
    return rows[0]!;
  };

  it("computes the readers' horizon in PL/pgSQL, whose plans last the connection (a SQL function that is not inlined is planned on every call)", async () => {
    expect((await functionOf('seqflow_log_horizon')).language).toBe('plpgsql');
    const { rows } = await pool.query<{ horizon: string; xmax: string }>('SELECT seqflow_log_horizon()::text AS horizon, pg_snapshot_xmax(pg_current_snapshot())::text AS xmax');
    // Nothing is appending: the horizon is the snapshot's xmax.
    expect(rows[0]!.horizon).toBe(rows[0]!.xmax);
  });

  it('reserves positions with one kept plan (its statement reads no table)', async () => {
    expect((await functionOf('seqflow_reserve_positions')).config).toContain('plan_cache_mode=force_generic_plan');
  });

  // A generic plan made while the log is small (a seq scan of one page) would be kept as it grows.
  it.each(['seqflow_append', 'seqflow_append_batch'])('%s plans its look-ups of the log for the log as it is (custom plans)', async (name) => {
    expect((await functionOf(name)).config ?? []).not.toContain('plan_cache_mode=force_generic_plan');
  });
});
