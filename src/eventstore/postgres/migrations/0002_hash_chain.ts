import { type Kysely, sql } from 'kysely';
import { GENESIS_HASH, chainHash, contentHash } from '../../../domain/audit/eventHash.ts';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Adds the hash chain: each event\'s content and chain hash, each stream\'s head hash, computed by the append.';

const BACKFILL_BATCH = 2000;

/**
 * Tamper evidence: every event carries `content_hash` (SHA-256 of its RFC 8785 canonical JSON,
 * computed by the writer) and `chain_hash` = SHA-256(previous chain hash ":" revision ":" content
 * hash), chained along its stream and computed by `seqflow_append` in the same round trip as the
 * append; the stream's newest link is kept as `seqflow_streams.head_hash`, so removing a stream's
 * last event shows too. Existing events are hashed here, stream by stream.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE seqflow_events ADD COLUMN content_hash text, ADD COLUMN chain_hash text`.execute(db);
  await sql`ALTER TABLE seqflow_streams ADD COLUMN head_hash text`.execute(db);
  await backfill(db);
  await sql`ALTER TABLE seqflow_events ALTER COLUMN content_hash SET NOT NULL, ALTER COLUMN chain_hash SET NOT NULL`.execute(db);

  await sql`DROP FUNCTION seqflow_append(text, bigint, uuid[], text[], integer[], jsonb[], jsonb[])`.execute(db);
  // Expected revision: -1 no stream, -2 any, -3 stream exists, >= 0 revision of the last event.
  await sql`
    CREATE FUNCTION seqflow_append(
      p_stream_id text, p_expected bigint, p_event_ids uuid[], p_types text[], p_versions integer[],
      p_data jsonb[], p_metadata jsonb[], p_content_hashes text[]
    ) RETURNS TABLE (outcome text, next_revision bigint, last_position bigint)
    LANGUAGE plpgsql AS $$
    DECLARE
      n integer := cardinality(p_event_ids);
      v_positions bigint[];
      v_chain text[] := ARRAY[]::text[];
      v_prev text;
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

      -- The stream's row is locked by the statement above: no other append extends this chain meanwhile.
      SELECT coalesce(head_hash, '${sql.raw(GENESIS_HASH)}') INTO v_prev FROM seqflow_streams WHERE stream_id = p_stream_id;
      FOR i IN 1..n LOOP
        v_prev := encode(sha256(convert_to(v_prev || ':' || (v_next - n + i)::text || ':' || p_content_hashes[i], 'UTF8')), 'hex');
        v_chain := v_chain || v_prev;
      END LOOP;
      UPDATE seqflow_streams SET head_hash = v_prev WHERE stream_id = p_stream_id;

      INSERT INTO seqflow_events
        (global_position, event_id, stream_id, stream_revision, event_type, schema_version, data, metadata, content_hash, chain_hash)
      SELECT v_positions[i], p_event_ids[i], p_stream_id, v_next - n + i, p_types[i], p_versions[i], p_data[i], p_metadata[i], p_content_hashes[i], v_chain[i]
        FROM generate_subscripts(p_event_ids, 1) AS i;

      RETURN QUERY SELECT 'appended'::text, v_next, v_positions[n];
    END $$`.execute(db);
}

interface BackfillRow {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_revision: string;
  event_type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
}

/** Hashes the events written before this migration, in stream and revision order, a batch at a time. */
async function backfill(db: Kysely<unknown>) {
  let after = { streamId: '', revision: -1 };
  let chain = { streamId: '', head: GENESIS_HASH };
  for (;;) {
    const { rows } = await sql<BackfillRow>`
      SELECT global_position, event_id, stream_id, stream_revision, event_type, schema_version, data, metadata FROM seqflow_events
      WHERE (stream_id, stream_revision) > (${after.streamId}, ${after.revision})
      ORDER BY stream_id, stream_revision LIMIT ${BACKFILL_BATCH}`.execute(db);
    if (rows.length === 0) break;
    const positions: string[] = [];
    const contents: string[] = [];
    const links: string[] = [];
    const heads = new Map<string, string>();
    for (const row of rows) {
      if (row.stream_id !== chain.streamId) chain = { streamId: row.stream_id, head: GENESIS_HASH };
      const revision = Number(row.stream_revision);
      const content = contentHash({ streamId: row.stream_id, id: row.event_id, type: row.event_type, schemaVersion: row.schema_version, data: row.data, metadata: row.metadata });
      chain.head = chainHash(chain.head, revision, content);
      positions.push(String(row.global_position));
      contents.push(content);
      links.push(chain.head);
      heads.set(row.stream_id, chain.head);
    }
    await sql`
      UPDATE seqflow_events e SET content_hash = u.content_hash, chain_hash = u.chain_hash
      FROM unnest(${positions}::bigint[], ${contents}::text[], ${links}::text[]) AS u(global_position, content_hash, chain_hash)
      WHERE e.global_position = u.global_position`.execute(db);
    await sql`
      UPDATE seqflow_streams s SET head_hash = u.head_hash
      FROM unnest(${[...heads.keys()]}::text[], ${[...heads.values()]}::text[]) AS u(stream_id, head_hash)
      WHERE s.stream_id = u.stream_id`.execute(db);
    const last = rows.at(-1)!;
    after = { streamId: last.stream_id, revision: Number(last.stream_revision) };
  }
}

export async function down(): Promise<void> {
  throw new Error('the hash chain cannot be removed by a migration');
}
