import type pg from 'pg';
import { PREPARED } from '../../database/preparedStatements.ts';
import { contentHash } from '../../domain/audit/eventHash.ts';
import { type AppendOptions, type AppendResult, type EventToAppend, type ExpectedRevision, WrongExpectedRevision } from '../eventStore.ts';

export const EXPECTED_CODES: Record<Exclude<ExpectedRevision, number>, number> = { no_stream: -1, any: -2, stream_exists: -3 };

/**
 * Runs' data keys stored by the statement that appends (a data-modifying CTE always runs, in the
 * statement's transaction): `$n` the runs, `$n+1` their sealed keys. A run that has a key keeps it
 * (a retried append, or a run's first events appended twice, of which one fails its expected revision).
 */
export const storingKeys = (n: number) =>
  `WITH stored_keys AS (INSERT INTO run_data_keys (execution_id, wrapped_key) SELECT * FROM unnest($${n}::text[], $${n + 1}::text[]) ON CONFLICT (execution_id) DO NOTHING)`;

/**
 * One round trip: the whole append (concurrency check, positions, hash chain, rows) is `seqflow_append`.
 * Its statement is PREPARED: each session of a pool whose connections are the server's own
 * (preparingClient) parses and plans each of its four variants once.
 */
export async function appendToStream(
  pool: pg.Pool,
  streamId: string,
  events: EventToAppend[],
  expected: ExpectedRevision,
  options: AppendOptions = {},
): Promise<AppendResult & { appended: boolean }> {
  if (events.length === 0) throw new Error('append needs at least one event');
  const expectedCode = typeof expected === 'number' ? expected : EXPECTED_CODES[expected];
  const params = [
    streamId,
    expectedCode,
    events.map((e) => e.id),
    events.map((e) => e.type),
    events.map((e) => e.schemaVersion),
    events.map((e) => JSON.stringify(e.data)),
    events.map((e) => JSON.stringify(e.metadata)),
    // The writer hashes the content; the function chains the hashes along the stream.
    events.map((e) => contentHash({ streamId, id: e.id, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata })),
  ];
  const keys = options.dataKeys ?? [];
  if (keys.length > 0) params.push(keys.map((k) => k.executionId), keys.map((k) => k.wrappedKey));
  const call = 'seqflow_append($1, $2, $3::uuid[], $4::text[], $5::integer[], $6::jsonb[], $7::jsonb[], $8::text[])';
  const select =
    options.durability === 'deferred'
      ? // set_config(..., true) applies to this statement's own transaction, so the commit does not wait for the disk.
        `SELECT a.* FROM set_config('synchronous_commit', 'off', true) s, ${call} a`
      : `SELECT * FROM ${call}`;
  const statement = `${keys.length > 0 ? `${storingKeys(9)} ${select}` : select} ${PREPARED}`;
  const run = () => pool.query<{ outcome: string; next_revision: string; last_position: string | null }>(statement, params);
  let result;
  try {
    result = await run();
  } catch (error) {
    // Two identical retries racing: the loser hits the event-id constraint; re-running reports the winner's append.
    if ((error as { code?: string; constraint?: string }).constraint === 'seqflow_events_event_id_key') result = await run();
    else throw error;
  }
  const row = result.rows[0]!;
  if (row.outcome === 'conflict') throw new WrongExpectedRevision(streamId, expected, Number(row.next_revision));
  return { nextExpectedRevision: Number(row.next_revision), position: Number(row.last_position), appended: row.outcome === 'appended' };
}
