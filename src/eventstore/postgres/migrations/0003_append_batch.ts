import { type Kysely, sql } from 'kysely';
import { GENESIS_HASH } from '../../../domain/audit/eventHash.ts';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Adds seqflow_append_batch: many appends in one call, for the group-committing writer.';

/**
 * `seqflow_append_batch`: many appends (to any streams) in one call and one transaction, each with
 * its own expected revision and its own outcome, for the group-committing writer. A conflict is an
 * outcome of that append alone; only an error (a partly duplicated append, a deadlock, a lost
 * connection) fails the call, and the writer then makes each append on its own.
 *
 * The events arrive flattened: append i owns `p_counts[i]` events, in order. One query finds the
 * appends that are retries of committed ones (`duplicate`). Positions for the others are reserved
 * before anything is written. Then each append in order: its stream's row is locked and read (or
 * created), the expected revision checked, the chain links computed from the head, and the row
 * written once with the new revision and head; a later append to the same stream in this batch
 * sees that row. Last, one INSERT of every accepted event. Per append that is two statements on the
 * stream's row (one for a new stream), where one append alone takes four.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The links of events appended after `prev` (the stream's head), the first at revision `first_revision`.
  await sql`
    CREATE FUNCTION seqflow_chain_links(prev text, first_revision bigint, content_hashes text[]) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
      links text[] := ARRAY[]::text[];
    BEGIN
      FOR j IN 1..cardinality(content_hashes) LOOP
        prev := encode(sha256(convert_to(prev || ':' || (first_revision + j - 1)::text || ':' || content_hashes[j], 'UTF8')), 'hex');
        links := links || prev;
      END LOOP;
      RETURN links;
    END $$`.execute(db);
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
      v_existing uuid[];
      v_candidates integer := 0;
      v_positions bigint[];
      v_used integer := 0;
      v_start integer := 1;
      v_rev bigint;
      v_head text;
      v_found integer;
      v_pos bigint;
      v_exists boolean;
      v_rows_event integer[] := ARRAY[]::integer[];
      v_rows_stream text[] := ARRAY[]::text[];
      v_rows_revision bigint[] := ARRAY[]::bigint[];
      v_rows_chain text[] := ARRAY[]::text[];
      v_links text[];
      n integer;
    BEGIN
      FOR i IN 1..k LOOP
        v_first := v_first || v_start;
        v_start := v_start + p_counts[i];
      END LOOP;

      -- Retries of committed appends (a lost reply) report what they wrote: one query for the batch.
      SELECT array_agg(ev.event_id) INTO v_existing FROM seqflow_events ev
        WHERE ev.event_id = ANY(ARRAY(SELECT p_event_ids[v_first[i]] FROM generate_series(1, k) AS i));
      FOR i IN 1..k LOOP
        n := p_counts[i];
        v_outcome := v_outcome || NULL::text;
        v_next := v_next || NULL::bigint;
        v_last := v_last || NULL::bigint;
        IF v_existing IS NOT NULL AND p_event_ids[v_first[i]] = ANY(v_existing) THEN
          SELECT count(*), max(ev.stream_revision), max(ev.global_position) INTO v_found, v_rev, v_pos
            FROM seqflow_events ev WHERE ev.event_id = ANY(p_event_ids[v_first[i]:v_first[i] + n - 1]) AND ev.stream_id = p_stream_ids[i];
          IF v_found <> n THEN
            RAISE EXCEPTION 'events % were partly appended already', p_event_ids[v_first[i]:v_first[i] + n - 1] USING ERRCODE = 'unique_violation';
          END IF;
          v_outcome[i] := 'duplicate';
          v_next[i] := v_rev;
          v_last[i] := v_pos;
        ELSE
          v_candidates := v_candidates + n;
        END IF;
      END LOOP;

      -- Positions before any write: the transaction id is taken with them under the one short lock,
      -- so transaction-id order and position order agree (see 0001). An append that then conflicts
      -- leaves its positions unused: a gap, as a rolled-back append leaves one.
      IF v_candidates > 0 THEN
        v_positions := seqflow_reserve_positions(v_candidates);
      END IF;

      FOR i IN 1..k LOOP
        CONTINUE WHEN v_outcome[i] IS NOT NULL;
        n := p_counts[i];
        LOOP
          v_rev := NULL;
          v_head := NULL;
          v_exists := false;
          IF p_expected[i] <> -1 THEN
            SELECT revision, head_hash, true INTO v_rev, v_head, v_exists FROM seqflow_streams WHERE stream_id = p_stream_ids[i] FOR UPDATE;
            v_exists := coalesce(v_exists, false);
          END IF;
          IF v_exists AND (p_expected[i] = -2 OR p_expected[i] = -3 OR v_rev = p_expected[i]) THEN
            v_links := seqflow_chain_links(coalesce(v_head, '${sql.raw(GENESIS_HASH)}'), v_rev + 1, p_content_hashes[v_first[i]:v_first[i] + n - 1]);
            UPDATE seqflow_streams SET revision = v_rev + n, head_hash = v_links[n] WHERE stream_id = p_stream_ids[i];
          ELSIF NOT v_exists AND (p_expected[i] = -1 OR p_expected[i] = -2) THEN
            v_rev := -1;
            v_links := seqflow_chain_links('${sql.raw(GENESIS_HASH)}', 0, p_content_hashes[v_first[i]:v_first[i] + n - 1]);
            INSERT INTO seqflow_streams (stream_id, revision, head_hash) VALUES (p_stream_ids[i], n - 1, v_links[n]) ON CONFLICT (stream_id) DO NOTHING;
            -- Created meanwhile by another transaction: 'any' goes on with the stream as it now is.
            CONTINUE WHEN NOT FOUND AND p_expected[i] = -2;
            IF NOT FOUND THEN
              SELECT revision INTO v_rev FROM seqflow_streams WHERE stream_id = p_stream_ids[i];
              v_outcome[i] := 'conflict';
              v_next[i] := coalesce(v_rev, -1);
              EXIT;
            END IF;
          ELSE
            v_outcome[i] := 'conflict';
            v_next[i] := CASE WHEN v_exists THEN v_rev ELSE -1 END;
            EXIT;
          END IF;
          FOR j IN 1..n LOOP
            v_rows_event := v_rows_event || (v_first[i] + j - 1);
            v_rows_stream := v_rows_stream || p_stream_ids[i];
            v_rows_revision := v_rows_revision || (v_rev + j);
          END LOOP;
          v_rows_chain := v_rows_chain || v_links;
          v_outcome[i] := 'appended';
          v_next[i] := v_rev + n;
          v_last[i] := v_positions[v_used + n];
          v_used := v_used + n;
          EXIT;
        END LOOP;
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
