import { randomBytes, randomUUID } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { verifyLog } from '../src/audit/logVerification.ts';
import type { EventToAppend } from '../src/eventstore/eventStore.ts';
import * as eventLog0001 from '../src/eventstore/postgres/migrations/0001_event_log.ts';
import { appendToStream } from '../src/eventstore/postgres/appendToStream.ts';
import { createPostgresEventStore } from '../src/eventstore/postgres/postgresEventStore.ts';

const WRITERS = 16;
const PER_WRITER = 150;
const VERIFY_EVENTS = 50_000;

const event = (): EventToAppend => ({
  id: randomUUID(),
  type: 'BenchEvent',
  schemaVersion: 1,
  data: { value: randomBytes(16).toString('hex'), n: 42 },
  metadata: { correlationId: randomUUID(), causationId: null, principal: { kind: 'system', id: 'bench' }, occurredAt: new Date().toISOString() },
});

/** `WRITERS` concurrent writers, each appending single events to a stream of its own; appends per second. */
async function singleEventAppends(append: (stream: string, e: EventToAppend, expected: number) => Promise<void>) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const stream = `bench-${randomUUID()}`;
      for (let i = 0; i < PER_WRITER; i++) await append(stream, event(), i - 1);
    }),
  );
  return Math.round((WRITERS * PER_WRITER) / ((performance.now() - started) / 1000));
}

/**
 * What the hash chain costs and how fast it is checked: single-event appends from 16 writers on the
 * log as it is (the writer hashes, `seqflow_append` chains) against the same appends on the log as
 * it was before the chain (migration 0001 only, its 7-argument `seqflow_append`), on the same
 * server; then `verifyLog` over 50,000 events, in events per second.
 */
export async function benchAudit(unchainedUrl: string, chainedUrl: string) {
  const unchainedPool = new pg.Pool({ connectionString: unchainedUrl, max: WRITERS + 2 });
  const chainedPool = new pg.Pool({ connectionString: chainedUrl, max: WRITERS + 2 });
  for (const pool of [unchainedPool, chainedPool]) pool.on('error', () => undefined);
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: { connect: () => unchainedPool.connect(), end: async () => undefined } as unknown as pg.Pool }) });
  const store = createPostgresEventStore({ pool: chainedPool, connectionString: chainedUrl });
  try {
    const migrated = await new Migrator({ db, provider: { getMigrations: async () => ({ '0001_event_log': eventLog0001 }) }, migrationTableName: 'seqflow_eventlog_migration', migrationLockTableName: 'seqflow_eventlog_migration_lock' }).migrateToLatest();
    if (migrated.error) throw migrated.error;
    await store.migrate();

    const appendUnchained = async (stream: string, e: EventToAppend, expected: number) => {
      await unchainedPool.query('SELECT * FROM seqflow_append($1, $2, $3::uuid[], $4::text[], $5::integer[], $6::jsonb[], $7::jsonb[])', [stream, expected, [e.id], [e.type], [e.schemaVersion], [JSON.stringify(e.data)], [JSON.stringify(e.metadata)]]);
    };
    // The store's own append path (appendToStream: the writer's hashing, then seqflow_append), without its wake-ups.
    const appendChained = async (stream: string, e: EventToAppend, expected: number) => void (await appendToStream(chainedPool, stream, [e], expected === -1 ? 'no_stream' : expected));
    // Alternating runs, best of two each, so a slow moment of the VM does not fall on one side only.
    const unchained = await singleEventAppends(appendUnchained);
    const chained = await singleEventAppends(appendChained);
    const unchained2 = await singleEventAppends(appendUnchained);
    const chained2 = await singleEventAppends(appendChained);
    const without = Math.max(unchained, unchained2);
    const withChain = Math.max(chained, chained2);

    for (let written = 0; written < VERIFY_EVENTS; written += 100) {
      await store.append(`verify-${written % 5000}`, Array.from({ length: 100 }, event), 'any');
    }
    const started = performance.now();
    const verified = await verifyLog(store);
    const seconds = (performance.now() - started) / 1000;
    if (verified.problem) throw new Error(`the bench log does not verify: ${verified.problem.detail}`);
    return {
      hashChainAppendCost: { writers: WRITERS, appendsPerSecondWithout: without, appendsPerSecondWith: withChain, ratio: Number((withChain / without).toFixed(2)) },
      verifyLog: { events: verified.events, streams: verified.streams, seconds: Number(seconds.toFixed(2)), eventsPerSecond: Math.round(verified.events / seconds) },
    };
  } finally {
    await store.close();
    await db.destroy();
    await unchainedPool.end();
    await chainedPool.end();
  }
}
