/**
 * `npx tsx bench/groupCommitSweep.ts`: single-event appends from 16 writers (500 each) with group
 * commit off (0) and with 1, 2, 4 and 8 calls in flight (SWEEP=0,1,2,4,8), beside the plain-INSERT
 * ceiling measured before and after, on a fresh database of the local server. How the default
 * `maxInFlight` was chosen; prints one line per setting.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { createPostgresEventStore } from '../src/eventstore/postgres/postgresEventStore.ts';
import { benchEvent } from './benchEvent.ts';

const WRITERS = 16;
const PER_WRITER = 500;
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `seqflow_sweep_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const pool = new pg.Pool({ connectionString: url.toString(), max: 24 });
pool.on('error', () => undefined);


const perSecond = async (work: () => Promise<void>) => {
  const started = performance.now();
  await work();
  return Math.round((WRITERS * PER_WRITER) / ((performance.now() - started) / 1000));
};

const ceiling = async () => {
  await pool.query(`CREATE TABLE IF NOT EXISTS plain_rows (id bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, stream_id text NOT NULL, stream_revision bigint NOT NULL,
    event_type text NOT NULL, schema_version integer NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(), UNIQUE (stream_id, stream_revision))`);
  return perSecond(async () => {
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        const client = await pool.connect();
        const stream = randomUUID();
        for (let i = 0; i < PER_WRITER; i++) {
          const e = benchEvent();
          await client.query('INSERT INTO plain_rows (event_id, stream_id, stream_revision, event_type, schema_version, data, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7)', [e.id, stream, i, e.type, 1, JSON.stringify(e.data), JSON.stringify(e.metadata)]);
        }
        client.release();
      }),
    );
  });
};

try {
  console.log(`insert ceiling: ${await ceiling()}/s`);
  for (const inFlight of (process.env.SWEEP ?? '0,1,2,4,8').split(',').map(Number)) {
    const store = createPostgresEventStore({ pool, connectionString: url.toString(), groupCommit: inFlight === 0 ? false : { maxInFlight: inFlight } });
    await store.migrate();
    const rate = await perSecond(async () => {
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          const stream = `sweep-${randomUUID()}`;
          let revision: number | 'no_stream' = 'no_stream';
          for (let i = 0; i < PER_WRITER; i++) revision = (await store.append(stream, [benchEvent()], revision)).nextExpectedRevision;
        }),
      );
    });
    console.log(`${inFlight === 0 ? 'group commit off' : `maxInFlight ${inFlight}`}: ${rate}/s`);
    await store.close();
  }
  console.log(`insert ceiling: ${await ceiling()}/s`);
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.end();
}
