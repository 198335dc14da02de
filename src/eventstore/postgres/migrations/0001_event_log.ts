import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the event log: its events and streams tables and the append function.';

/**
 * The event log's tables and functions.
 *
 * Ordering and gaps: positions come from a sequence, and a transaction that took a lower position
 * may commit after one that took a higher one. Subscribers therefore read only events whose
 * transaction id is below `pg_snapshot_xmin(pg_current_snapshot())` (every such transaction has
 * ended, so nothing can still appear below that line) and page by a (transaction id, position)
 * cursor. `seqflow_reserve_positions` additionally takes the transaction id and the positions under
 * one short lock, so that transaction-id order and position order agree: the log order is plain
 * position order. That lock is a session advisory lock held for microseconds inside one function
 * call (never across statements or commits), so it is safe behind transaction poolers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE SEQUENCE seqflow_event_position AS bigint`.execute(db);

  await sql`
    CREATE TABLE seqflow_events (
      global_position bigint PRIMARY KEY,
      event_id uuid NOT NULL UNIQUE,
      stream_id text NOT NULL,
      stream_revision bigint NOT NULL,
      event_type text NOT NULL,
      schema_version integer NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      UNIQUE (stream_id, stream_revision)
    )`.execute(db);
  await sql`CREATE INDEX seqflow_events_log_order ON seqflow_events (transaction_id, global_position)`.execute(db);

  await sql`
    CREATE TABLE seqflow_streams (
      stream_id text PRIMARY KEY,
      revision bigint NOT NULL
    )`.execute(db);

  await sql`
    CREATE FUNCTION seqflow_reserve_positions(n integer) RETURNS bigint[]
    LANGUAGE plpgsql AS $$
    DECLARE
      positions bigint[];
    BEGIN
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

  // Expected revision: -1 no stream, -2 any, -3 stream exists, >= 0 revision of the last event.
  await sql`
    CREATE FUNCTION seqflow_append(
      p_stream_id text, p_expected bigint, p_event_ids uuid[], p_types text[], p_versions integer[],
      p_data jsonb[], p_metadata jsonb[]
    ) RETURNS TABLE (outcome text, next_revision bigint, last_position bigint)
    LANGUAGE plpgsql AS $$
    DECLARE
      n integer := cardinality(p_event_ids);
      v_positions bigint[];
      v_next bigint;
      v_last bigint;
      v_found integer;
    BEGIN
      -- A retry of an append that committed (reply lost) finds its own events and reports them.
      IF EXISTS (SELECT 1 FROM seqflow_events WHERE event_id = p_event_ids[1]) THEN
        SELECT count(*), max(e.stream_revision), max(e.global_position) INTO v_found, v_next, v_last
          FROM seqflow_events e WHERE e.event_id = ANY(p_event_ids) AND e.stream_id = p_stream_id;
        IF v_found <> n THEN
          RAISE EXCEPTION 'events % were partly appended already', p_event_ids USING ERRCODE = 'unique_violation';
        END IF;
        RETURN QUERY SELECT 'duplicate'::text, v_next, v_last;
        RETURN;
      END IF;

      v_positions := seqflow_reserve_positions(n);

      IF p_expected = -1 THEN
        INSERT INTO seqflow_streams (stream_id, revision) VALUES (p_stream_id, n - 1)
          ON CONFLICT (stream_id) DO NOTHING RETURNING revision INTO v_next;
      ELSIF p_expected = -2 THEN
        INSERT INTO seqflow_streams AS s (stream_id, revision) VALUES (p_stream_id, n - 1)
          ON CONFLICT (stream_id) DO UPDATE SET revision = s.revision + n RETURNING s.revision INTO v_next;
      ELSIF p_expected = -3 THEN
        UPDATE seqflow_streams SET revision = revision + n WHERE stream_id = p_stream_id RETURNING revision INTO v_next;
      ELSE
        UPDATE seqflow_streams SET revision = revision + n
          WHERE stream_id = p_stream_id AND revision = p_expected RETURNING revision INTO v_next;
      END IF;

      IF v_next IS NULL THEN
        SELECT revision INTO v_next FROM seqflow_streams WHERE stream_id = p_stream_id;
        RETURN QUERY SELECT 'conflict'::text, coalesce(v_next, -1), NULL::bigint;
        RETURN;
      END IF;

      INSERT INTO seqflow_events
        (global_position, event_id, stream_id, stream_revision, event_type, schema_version, data, metadata)
      SELECT v_positions[i], p_event_ids[i], p_stream_id, v_next - n + i, p_types[i], p_versions[i], p_data[i], p_metadata[i]
        FROM generate_subscripts(p_event_ids, 1) AS i;

      RETURN QUERY SELECT 'appended'::text, v_next, v_positions[n];
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS seqflow_append`.execute(db);
  await sql`DROP FUNCTION IF EXISTS seqflow_reserve_positions`.execute(db);
  await sql`DROP TABLE IF EXISTS seqflow_streams`.execute(db);
  await sql`DROP TABLE IF EXISTS seqflow_events`.execute(db);
  await sql`DROP SEQUENCE IF EXISTS seqflow_event_position`.execute(db);
}
