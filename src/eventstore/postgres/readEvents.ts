import { PREPARED } from '../../database/preparedStatements.ts';
import type { EventMetadata } from '../../domain/events/eventMetadata.ts';
import type { ReadStreamOptions, RecordedEvent } from '../eventStore.ts';
import type { Reads } from './retryingReads.ts';

interface EventRow {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_revision: string;
  event_type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: Date;
  transaction_id_text: string;
  chain_hash: string | null;
}

/** Where a subscriber stands: the (transaction id, position) of the last event it has read. */
export interface LogCursor {
  transactionId: string;
  position: number;
}

export const START_CURSOR: LogCursor = { transactionId: '0', position: 0 };

// The text alias must not be named transaction_id: ORDER BY would then sort by the text ("1000" < "999").
const COLUMNS =
  'global_position, event_id, stream_id, stream_revision, event_type, schema_version, data, metadata, recorded_at, transaction_id::text AS transaction_id_text, chain_hash';

const toRecorded = (row: EventRow): RecordedEvent => ({
  id: row.event_id,
  streamId: row.stream_id,
  revision: Number(row.stream_revision),
  position: Number(row.global_position),
  type: row.event_type,
  schemaVersion: row.schema_version,
  data: row.data,
  metadata: row.metadata,
  recordedAt: row.recorded_at,
  hash: row.chain_hash,
});

export async function readStream(pool: Reads, streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
  const { rows } = await pool.query<EventRow>(
    `SELECT ${COLUMNS} FROM seqflow_events WHERE stream_id = $1 AND stream_revision >= $2 ORDER BY stream_revision LIMIT $3`,
    [streamId, options.fromRevision ?? 0, options.maxCount ?? null],
  );
  return rows.map(toRecorded);
}

/** Whole streams in one query, by the (stream_id, stream_revision) key: a page of its index per stream. */
export const WHOLE_STREAMS = `SELECT ${COLUMNS} FROM seqflow_events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, stream_revision`;

/** Whole streams, read together (postgresEventStore joins the readers of one turn of the event loop); a stream with no event is absent. */
export async function readStreams(pool: Reads, streamIds: string[]): Promise<Map<string, RecordedEvent[]>> {
  const { rows } = await pool.query<EventRow>(WHOLE_STREAMS, [streamIds]);
  const streams = new Map<string, RecordedEvent[]>();
  for (const row of rows) {
    const events = streams.get(row.stream_id);
    if (events) events.push(toRecorded(row));
    else streams.set(row.stream_id, [toRecorded(row)]);
  }
  return streams;
}

export async function streamExists(pool: Reads, streamId: string): Promise<boolean> {
  const { rows } = await pool.query<{ found: boolean }>('SELECT EXISTS (SELECT 1 FROM seqflow_streams WHERE stream_id = $1) AS found', [streamId]);
  return rows[0]!.found;
}

export async function streamHeads(pool: Reads, streamIds: string[]) {
  const { rows } = await pool.query<{ stream_id: string; revision: string; head_hash: string | null }>('SELECT stream_id, revision, head_hash FROM seqflow_streams WHERE stream_id = ANY($1::text[])', [streamIds]);
  return new Map(rows.map((r) => [r.stream_id, { revision: Number(r.revision), hash: r.head_hash }]));
}

/**
 * Events after the cursor in log order, only from below the log's visibility horizon (every
 * appending transaction below it has ended: see migration 0004), so an event committed late with a
 * lower position is never skipped, and no transaction but the log's own appenders holds readers back.
 * `cursors[i]` is the cursor just after `events[i]`.
 */
export async function readAfter(pool: Reads, cursor: LogCursor, limit: number): Promise<{ events: RecordedEvent[]; cursors: LogCursor[] }> {
  // Prepared where the pool's sessions are the server's (a call of the function: its plan is the function's own, whatever the log's size).
  const { rows } = await pool.query<EventRow>(
    `SELECT ${COLUMNS} FROM seqflow_read_after($1::xid8, $2::bigint, $3) ${PREPARED}`,
    [cursor.transactionId, cursor.position, limit],
  );
  return { events: rows.map(toRecorded), cursors: rows.map((row) => ({ transactionId: row.transaction_id_text, position: Number(row.global_position) })) };
}

/** The cursor just after the event at `position` (or the last event before it). */
export async function cursorAt(pool: Reads, position: number): Promise<LogCursor> {
  if (position <= 0) return START_CURSOR;
  const { rows } = await pool.query<{ transaction_id: string; global_position: string }>(
    `SELECT transaction_id::text AS transaction_id, global_position FROM seqflow_events
      WHERE global_position <= $1 ORDER BY global_position DESC LIMIT 1`,
    [position],
  );
  const row = rows[0];
  return row ? { transactionId: row.transaction_id, position: Number(row.global_position) } : START_CURSOR;
}

/**
 * The cursor of the last event below the visibility horizon: every event after it, committed or
 * still in an open transaction (even one holding a lower position than the head), is read after it.
 */
export async function horizonCursor(pool: Reads): Promise<LogCursor> {
  // Two statements: the read's snapshot must be taken after the horizon (see migration 0004).
  const horizon = (await pool.query<{ horizon: string }>('SELECT seqflow_log_horizon()::text AS horizon')).rows[0]!.horizon;
  const { rows } = await pool.query<{ transaction_id: string; global_position: string }>(
    `SELECT transaction_id::text AS transaction_id, global_position FROM seqflow_events
      WHERE transaction_id < $1::xid8
      ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
    [horizon],
  );
  const row = rows[0];
  return row ? { transactionId: row.transaction_id, position: Number(row.global_position) } : START_CURSOR;
}

/**
 * Whether anything is after a cursor, asked as the first row in log order rather than `EXISTS`:
 * PostgreSQL takes the row comparison for a third of the table, and for `EXISTS` (which drops an
 * ORDER BY) then planned a scan of the whole log, stopping at the first row after the cursor; a
 * subscriber that is caught up has none, so each call read every event (9 ms on the bench's 10,000,
 * a third of its PostgreSQL time). Ordered by the log-order index with LIMIT 1, it is one probe of
 * that index, whatever the statistics say (test/integration/logReadPlans.int.spec.ts).
 */
export const EVENTS_AFTER_CURSOR = `SELECT true AS pending FROM seqflow_events WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
  ORDER BY transaction_id, global_position LIMIT 1`;

/** True when events exist after the cursor that are not yet readable (their transactions are still open or a lower one is). */
export async function hasEventsBeyondHorizon(pool: Reads, cursor: LogCursor): Promise<boolean> {
  const { rows } = await pool.query<{ pending: boolean }>(EVENTS_AFTER_CURSOR, [cursor.transactionId, cursor.position]);
  return rows.length > 0;
}

export async function headPosition(pool: Reads): Promise<number> {
  const { rows } = await pool.query<{ head: string | null }>('SELECT max(global_position) AS head FROM seqflow_events');
  return Number(rows[0]!.head ?? 0);
}
