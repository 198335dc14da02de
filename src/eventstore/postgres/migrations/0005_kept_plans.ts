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
 * - The append functions' statements were given custom plans on every call: their row counts come
 *   from the call's arguments (`generate_series(1, n)`), so PostgreSQL judged each custom plan
 *   cheaper than the generic one and never kept one. In `seqflow_append` and
 *   `seqflow_reserve_positions` every statement has one sensible plan (by primary key, or an INSERT
 *   from the arguments), so they now force the generic plan, kept per connection. Not in
 *   `seqflow_append_batch`: its look-up of retried appends (`event_id = ANY(ARRAY(SELECT ...))`)
 *   has no good generic plan (measured: ten times slower).
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
  for (const signature of APPEND_FUNCTIONS) await sql`ALTER FUNCTION ${sql.raw(signature)} SET plan_cache_mode = force_generic_plan`.execute(db);
}

const APPEND_FUNCTIONS = [
  'seqflow_append(text, bigint, uuid[], text[], integer[], jsonb[], jsonb[], text[])',
  'seqflow_reserve_positions(integer)',
];

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const signature of APPEND_FUNCTIONS) await sql`ALTER FUNCTION ${sql.raw(signature)} RESET plan_cache_mode`.execute(db);
}
