import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Subscribers read below the log\'s own appenders\' horizon instead of the whole server\'s.';

/**
 * The visibility horizon belongs to the log's own appenders, not to the whole server.
 *
 * Before, subscribers read below `pg_snapshot_xmin` of the server: transaction ids are server-wide,
 * so any write transaction left open anywhere (another database, an idle `psql`, a slow projection
 * batch) froze every subscriber. Now an appending transaction marks itself with a shared
 * transaction-level advisory lock, taken before it has a transaction id, and readers hold back
 * only for marked transactions still in progress:
 *
 *   horizon = least(xmax of a snapshot, oldest in-progress transaction of that snapshot that holds the mark)
 *
 * Why this is safe: an event below the horizon that a reader cannot see yet would belong to a
 * transaction with an id below the snapshot's xmax that is still in progress. That transaction took
 * the mark before its id (so before the snapshot), and the mark lasts until it ends, so the locks
 * read after the snapshot show it, and the horizon stops below it. A transaction that wrote
 * something else first already has an id older than its mark: `seqflow_reserve_positions` refuses
 * it (an append must be its transaction's first write; every append here is one statement).
 *
 * The read itself must take its snapshot after the horizon is computed (else a transaction that
 * committed in between would be below the horizon yet invisible, and skipped):
 * `seqflow_read_after` computes it in one statement and reads in the next, which in a VOLATILE
 * plpgsql function under READ COMMITTED takes a new snapshot.
 */
const MARK = sql.raw('731820, 5002');

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION seqflow_reserve_positions(n integer) RETURNS bigint[]
    LANGUAGE plpgsql AS $$
    DECLARE
      positions bigint[];
    BEGIN
      IF current_setting('seqflow.appending', true) IS DISTINCT FROM 'on' THEN
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
          RAISE EXCEPTION 'an event append must be the first write of its transaction'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'readers would not wait for a transaction id taken before the append marked its transaction';
        END IF;
        PERFORM pg_advisory_xact_lock_shared(${MARK});
        PERFORM set_config('seqflow.appending', 'on', true);
      END IF;
      PERFORM pg_advisory_lock(7318205001);
      BEGIN
        PERFORM pg_current_xact_id();
        positions := ARRAY(SELECT nextval('seqflow_event_position') FROM generate_series(1, n));
      EXCEPTION WHEN OTHERS OR query_canceled THEN
        PERFORM pg_advisory_unlock(7318205001);
        RAISE;
      END;
      PERFORM pg_advisory_unlock(7318205001);
      RETURN positions;
    END $$`.execute(db);

  // One read of pg_locks (a view: a second reference would read the locks again, at another moment).
  await sql`
    CREATE FUNCTION seqflow_log_horizon() RETURNS xid8
    LANGUAGE sql VOLATILE AS $$
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
      FROM snapshot
    $$`.execute(db);

  await sql`
    CREATE FUNCTION seqflow_read_after(p_transaction_id xid8, p_position bigint, p_limit integer) RETURNS SETOF seqflow_events
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      v_horizon xid8 := seqflow_log_horizon();
    BEGIN
      RETURN QUERY SELECT * FROM seqflow_events e
        WHERE e.transaction_id < v_horizon
          AND (e.transaction_id, e.global_position) > (p_transaction_id, p_position)
        ORDER BY e.transaction_id, e.global_position
        LIMIT p_limit;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS seqflow_read_after`.execute(db);
  await sql`DROP FUNCTION IF EXISTS seqflow_log_horizon`.execute(db);
}
