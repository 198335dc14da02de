import { type Kysely, sql } from 'kysely';
import { GENESIS_HASH } from '../../../domain/audit/eventHash.ts';

/**
 * `seqflow_append_batch`: many appends (to any streams) in one call and one transaction, each with
 * its own expected revision and its own outcome, for the group-committing writer. A conflict is an
 * outcome of that append alone; only an error (a partly duplicated append, a deadlock, a lost
 * connection) fails the call, and the writer then makes each append on its own.
 *
 * The events arrive flattened: append i owns `p_counts[i]` events, in order. A retry of a
 * committed append reports it (`duplicate`); positions for the others are reserved before anything
 * is written; then each append's revision is checked and moved, in order; then each accepted
 * append's chain hashes from its stream's head, and one INSERT of every accepted event.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION seqflow_append_batch(
      p_stream_ids text[], p_expected bigint[], p_counts integer[], p_event_ids uuid[], p_types text[],
      p_versions integer[], p_data jsonb[], p_metadata jsonb[], p_content_hashes text[]
    ) RETURNS TABLE (append_index integer, outcome text, next_revision bigint, last_position bigint)
    LANGUAGE plpgsql AS $$
    DECLARE
      k integer := cardinality(p_stream_ids);
      v_first integer[] := ARRAY[]::integer[];
      v_outcome text[] := ARRAY[]::text[];
      v_next bigint[] := ARRAY[]::bigint[];
      v_last bigint[] := ARRAY[]::bigint[];
      v_accepted integer := 0;
      v_positions bigint[];
      v_used integer := 0;
      v_start integer := 1;
      v_rev bigint;
      v_pos bigint;
      v_found integer;
      v_prev text;
      v_rows_event integer[] := ARRAY[]::integer[];
      v_rows_stream text[] := ARRAY[]::text[];
      v_rows_revision bigint[] := ARRAY[]::bigint[];
      v_rows_chain text[] := ARRAY[]::text[];
      n integer;
      e integer;
    BEGIN
      -- Pass 1, reads only: which appends are retries of committed ones.
      FOR i IN 1..k LOOP
        n := p_counts[i];
        v_first := v_first || v_start;
        v_rev := NULL;
        v_pos := NULL;
        v_outcome := v_outcome || NULL::text;
        IF EXISTS (SELECT 1 FROM seqflow_events WHERE event_id = p_event_ids[v_start]) THEN
          SELECT count(*), max(ev.stream_revision), max(ev.global_position) INTO v_found, v_rev, v_pos
            FROM seqflow_events ev WHERE ev.event_id = ANY(p_event_ids[v_start:v_start + n - 1]) AND ev.stream_id = p_stream_ids[i];
          IF v_found <> n THEN
            RAISE EXCEPTION 'events % were partly appended already', p_event_ids[v_start:v_start + n - 1] USING ERRCODE = 'unique_violation';
          END IF;
          v_outcome[i] := 'duplicate';
        ELSE
          v_accepted := v_accepted + n;
        END IF;
        v_next := v_next || v_rev;
        v_last := v_last || v_pos;
        v_start := v_start + n;
      END LOOP;

      -- Positions before any write: the transaction id is taken with them under the one short lock,
      -- so transaction-id order and position order agree (see 0001). An append that then conflicts
      -- leaves its positions unused: a gap, as a rolled-back append leaves one.
      IF v_accepted > 0 THEN
        v_positions := seqflow_reserve_positions(v_accepted);
      END IF;

      -- Pass 2: each append's expected revision, in order; the stream's row stays locked to the end of
      -- the transaction, and a later append to the same stream in this batch sees the moved revision.
      FOR i IN 1..k LOOP
        CONTINUE WHEN v_outcome[i] IS NOT NULL;
        n := p_counts[i];
        v_rev := NULL;
        IF p_expected[i] = -1 THEN
          INSERT INTO seqflow_streams (stream_id, revision) VALUES (p_stream_ids[i], n - 1)
            ON CONFLICT (stream_id) DO NOTHING RETURNING revision INTO v_rev;
        ELSIF p_expected[i] = -2 THEN
          INSERT INTO seqflow_streams AS s (stream_id, revision) VALUES (p_stream_ids[i], n - 1)
            ON CONFLICT (stream_id) DO UPDATE SET revision = s.revision + n RETURNING s.revision INTO v_rev;
        ELSIF p_expected[i] = -3 THEN
          UPDATE seqflow_streams SET revision = revision + n WHERE stream_id = p_stream_ids[i] RETURNING revision INTO v_rev;
        ELSE
          UPDATE seqflow_streams SET revision = revision + n
            WHERE stream_id = p_stream_ids[i] AND revision = p_expected[i] RETURNING revision INTO v_rev;
        END IF;
        IF v_rev IS NULL THEN
          SELECT revision INTO v_rev FROM seqflow_streams WHERE stream_id = p_stream_ids[i];
          v_outcome[i] := 'conflict';
          v_next[i] := coalesce(v_rev, -1);
        ELSE
          v_outcome[i] := 'appended';
          v_next[i] := v_rev;
        END IF;
      END LOOP;

      FOR i IN 1..k LOOP
        IF v_outcome[i] = 'appended' THEN
          n := p_counts[i];
          -- The stream's row is locked since pass 1: no other transaction extends this chain meanwhile.
          SELECT coalesce(head_hash, '${sql.raw(GENESIS_HASH)}') INTO v_prev FROM seqflow_streams WHERE stream_id = p_stream_ids[i];
          FOR j IN 0..n - 1 LOOP
            e := v_first[i] + j;
            v_prev := encode(sha256(convert_to(v_prev || ':' || (v_next[i] - n + 1 + j)::text || ':' || p_content_hashes[e], 'UTF8')), 'hex');
            v_rows_event := v_rows_event || e;
            v_rows_stream := v_rows_stream || p_stream_ids[i];
            v_rows_revision := v_rows_revision || (v_next[i] - n + 1 + j);
            v_rows_chain := v_rows_chain || v_prev;
          END LOOP;
          UPDATE seqflow_streams SET head_hash = v_prev WHERE stream_id = p_stream_ids[i];
          v_last[i] := v_positions[v_used + n];
          v_used := v_used + n;
        END IF;
      END LOOP;

      -- One INSERT for every accepted event, positions in batch order.
      IF v_used > 0 THEN
        INSERT INTO seqflow_events
          (global_position, event_id, stream_id, stream_revision, event_type, schema_version, data, metadata, content_hash, chain_hash)
        SELECT v_positions[r], p_event_ids[v_rows_event[r]], v_rows_stream[r], v_rows_revision[r], p_types[v_rows_event[r]], p_versions[v_rows_event[r]],
               p_data[v_rows_event[r]], p_metadata[v_rows_event[r]], p_content_hashes[v_rows_event[r]], v_rows_chain[r]
          FROM generate_series(1, v_used) AS r;
      END IF;

      RETURN QUERY SELECT i, v_outcome[i], v_next[i], v_last[i] FROM generate_series(1, k) AS i;
    END $$`.execute(db);
}
