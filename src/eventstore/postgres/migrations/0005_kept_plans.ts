import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = "The log's functions keep their query plans between calls instead of planning on every call (same results, less PostgreSQL CPU per append and per read).";

const MARK = sql.raw('731820, 5002');

/**
 * Planning was some 12% of PostgreSQL's CPU on the `/execute` benchmarks (pg_stat_statements with
 * track_planning, passthrough at concurrency 32), much of it inside the log's own functions:
 *
 * - `seqflow_log_horizon` was a LANGUAGE sql function that PostgreSQL does not inline (it is
 *   VOLATILE): such a function's body is planned again on every call, and its join of `pg_locks`
 *   took ~330 µs to plan, once per subscriber read. As PL/pgSQL, its one statement is planned once
 *   per connection. It stays one statement, so the snapshot and the read of the locks are still
 *   taken together (0004), and the caller's next statement still takes a new snapshot.
 * - `seqflow_reserve_positions` planned its one statement (`nextval` over `generate_series(1, n)`)
 *   on every call: its row count comes from the argument, so PostgreSQL judged each custom plan
 *   cheaper than the generic one and never kept one. It reads no table, so its generic plan is the
 *   only plan there is: forced, and kept per connection.
 *
 * The append functions' statements that read tables keep their custom plans: a generic plan is made
 * once per connection and kept until the table's statistics change, so one made while the log was
 * small (a seq scan is the cheapest plan of a table of one page) would go on scanning the whole log
 * as it grew until autovacuum next analyzed it. Measured with `seqflow_append_batch`'s look-up of
 * retried appends forced generic: 9 -> 48-166 µs per run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION seqflow_log_horizon() RETURNS xid8
    LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      RETURN (
        WITH snapshot AS (SELECT pg_current_snapshot() AS s),
        locks AS MATERIALIZED (SELECT locktype, database, classid, objid, objsubid, transactionid, mode, pid, granted FROM pg_locks),
        appending AS (
          SELECT own.transactionid::text::bigint AS xid32
            FROM locks mark JOIN locks own ON own.pid = mark.pid
           WHERE mark.locktype = 'advisory' AND mark.granted AND mark.objsubid = 2
             AND (mark.classid, mark.objid) = (${MARK})
             AND mark.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND own.locktype = 'transactionid' AND own.mode = 'ExclusiveLock' AND own.granted)
        SELECT least(
          pg_snapshot_xmax(snapshot.s),
          (SELECT min(x) FROM pg_snapshot_xip(snapshot.s) AS x
            WHERE x::text::bigint % 4294967296 IN (SELECT xid32 FROM appending)))
        FROM snapshot);
    END $$`.execute(db);
  for (const signature of GENERIC_PLAN_FUNCTIONS) await sql`ALTER FUNCTION ${sql.raw(signature)} SET plan_cache_mode = force_generic_plan`.execute(db);
}

const GENERIC_PLAN_FUNCTIONS = ['seqflow_reserve_positions(integer)'];

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const signature of GENERIC_PLAN_FUNCTIONS) await sql`ALTER FUNCTION ${sql.raw(signature)} RESET plan_cache_mode`.execute(db);
}
