/**
 * `npm run bench`: event-log and projection figures as JSON on stdout.
 *
 * Runs on a fresh database of BENCH_DATABASE_URL's server (default: the local PostgreSQL at
 * 127.0.0.1:5432; if none answers, an embedded one in a temp dir), and also against KurrentDB when
 * KURRENTDB_CONNECTION_STRING is set. Appends are compared with this machine's ceiling: plain
 * single-row INSERTs, each committed, into an equivalent table from the same number of connections.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { handleCommand } from '../src/commands/commandHandler.ts';
import { apiKey } from '../src/domain/apiKeys/apiKey.ts';
import { apiKeyStream } from '../src/domain/apiKeys/apiKeyEvents.ts';
import { startEmbeddedPostgres } from '../src/database/embeddedPostgres.ts';
import type { EventStore } from '../src/eventstore/eventStore.ts';
import { createKurrentDbEventStore } from '../src/eventstore/kurrentdb/kurrentDbEventStore.ts';
import { createPostgresEventStore } from '../src/eventstore/postgres/postgresEventStore.ts';
import { allProjections } from '../src/projections/allProjections.ts';
import { migrateReadModels } from '../src/projections/migrateReadModels.ts';
import { createProjectionRunner } from '../src/projections/projectionRunner.ts';
import type { ReadModels } from '../src/projections/readModelSchema.ts';
import { createSupervisor } from '../src/supervision/supervisor.ts';
import { benchDeliveries } from './deliveryBench.ts';
import { benchExecute } from './executeBench.ts';
import { benchTestSuite } from './testSuiteBench.ts';
import { benchMcp } from './mcpBench.ts';
import { benchAudit, benchAuditRuns } from './auditBench.ts';
import { benchConsole } from './consoleBench.ts';
import { emmettAppends } from './emmettBench.ts';
import { percentile } from './percentile.ts';
import { benchEvent } from './benchEvent.ts';

pg.types.setTypeParser(20, (value) => Number(value));
/** BENCH_ONLY=execute,webhooks,tests,mcp,audit,console runs the log figures and only those sections (default: all). */
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const wanted = (section: string) => !only || only.includes(section);
const logger = pino({ level: 'silent' });
const round = (n: number, digits = 0) => Number(n.toFixed(digits));


async function timed(work: () => Promise<number>): Promise<{ count: number; seconds: number; perSecond: number }> {
  const start = process.hrtime.bigint();
  const count = await work();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { count, seconds: round(seconds, 2), perSecond: round(count / seconds) };
}

/** `writers` concurrent writers, each appending `perWriter` appends of `batch` events to its own streams. */
async function appendLoad(store: EventStore, writers: number, perWriter: number, batch: number) {
  return timed(async () => {
    await Promise.all(
      Array.from({ length: writers }, async () => {
        let stream = `bench-${randomUUID()}`;
        let revision = -1;
        for (let i = 0; i < perWriter; i++) {
          const result = await store.append(stream, Array.from({ length: batch }, () => benchEvent()), revision === -1 ? 'no_stream' : revision);
          revision = result.nextExpectedRevision;
          if (revision >= 999) {
            stream = `bench-${randomUUID()}`;
            revision = -1;
          }
        }
      }),
    );
    return writers * perWriter * batch;
  });
}

/** The ceiling: one committed single-row INSERT per row into a table shaped like the event log. */
async function insertCeiling(pool: pg.Pool, connections: number, perConnection: number) {
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_plain_rows (
    id bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, stream_id text NOT NULL, stream_revision bigint NOT NULL,
    event_type text NOT NULL, schema_version integer NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(), UNIQUE (stream_id, stream_revision))`);
  return timed(async () => {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        const client = await pool.connect();
        const stream = `plain-${randomUUID()}`;
        try {
          for (let i = 0; i < perConnection; i++) {
            const e = benchEvent();
            await client.query(
              'INSERT INTO bench_plain_rows (event_id, stream_id, stream_revision, event_type, schema_version, data, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7)',
              [e.id, stream, i, e.type, 1, JSON.stringify(e.data), JSON.stringify(e.metadata)],
            );
          }
        } finally {
          client.release();
        }
      }),
    );
    return connections * perConnection;
  });
}

async function catchUpThroughput(store: EventStore) {
  const head = await store.headPosition();
  let seen = 0;
  return timed(async () => {
    await new Promise<void>((resolve, reject) => {
      const subscription = store.subscribe({
        from: 0,
        batchSize: 1000,
        handler: async (events) => {
          seen += events.length;
          if (events.at(-1)!.position >= head) {
            resolve();
            void subscription.stop();
          }
        },
        onError: reject,
      });
    });
    return seen;
  });
}

/** Commands at a steady rate while the projections run: how long until each command's events are in the read models. */
async function projectionLag(store: EventStore, db: Kysely<ReadModels>, ratePerSecond: number, seconds: number) {
  const supervisor = createSupervisor({ logger });
  const runner = createProjectionRunner({ db, eventStore: store, projections: allProjections, logger, supervisor });
  await runner.catchUp();
  await runner.start();
  const deps = { eventStore: store, now: () => new Date() };
  const lags: number[] = [];
  const pending: { position: number; start: number }[] = [];
  let stopSampling = false;

  const sampler = (async () => {
    while (!stopSampling || pending.length > 0) {
      const row = await db.selectFrom('projection_checkpoints').select((eb) => eb.fn.min('position').as('position')).executeTakeFirst();
      const reached = Number(row?.position ?? 0);
      const now = performance.now();
      for (let i = pending.length - 1; i >= 0; i--) {
        if (pending[i]!.position <= reached) {
          lags.push(now - pending[i]!.start);
          pending.splice(i, 1);
        }
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();

  const total = ratePerSecond * seconds;
  const interval = 1000 / ratePerSecond;
  const begin = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = begin + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      (async () => {
        const start = performance.now();
        const keyId = randomBytes(12).toString('hex');
        const result = await handleCommand(
          deps,
          apiKeyStream(keyId),
          apiKey,
          { type: 'CreateApiKey', data: { keyId, projectId: 'bench', organizationId: 'bench', environment: 'test', keyPrefix: 'sf', secretHash: 'a'.repeat(64) } },
          { principal: { kind: 'system', id: 'bench' } },
        );
        pending.push({ position: result.position, start });
      })(),
    );
  }
  await Promise.all(inflight);
  stopSampling = true;
  await sampler;
  await runner.stop();
  lags.sort((a, b) => a - b);
  return { commandsPerSecond: ratePerSecond, seconds, commands: total, p50Ms: round(percentile(lags, 50), 1), p99Ms: round(percentile(lags, 99), 1), maxMs: round(lags.at(-1) ?? 0, 1) };
}

async function benchStore(store: EventStore, pool: pg.Pool | undefined, oneCommitPerAppend?: EventStore) {
  const single1 = await appendLoad(store, 1, 2000, 1);
  const single16 = await appendLoad(store, 16, 500, 1);
  const unbatched16 = oneCommitPerAppend ? await appendLoad(oneCommitPerAppend, 16, 500, 1) : undefined;
  const batch1 = await appendLoad(store, 1, 100, 100);
  const batch16 = await appendLoad(store, 16, 20, 100);
  const ceiling1 = pool ? await insertCeiling(pool, 1, 2000) : undefined;
  const ceiling16 = pool ? await insertCeiling(pool, 16, 500) : undefined;
  const ratio = (perSecond: number, ceiling?: { perSecond: number }) => (ceiling ? round(perSecond / ceiling.perSecond, 2) : null);
  return {
    appends: {
      singleEvent1Writer: { appendsPerSecond: single1.perSecond, ratioToInsertCeiling: ratio(single1.perSecond, ceiling1) },
      singleEvent16Writers: {
        appendsPerSecond: single16.perSecond,
        ratioToInsertCeiling: ratio(single16.perSecond, ceiling16),
        // The same load with group commit off: one round trip and one commit per append.
        ...(unbatched16 ? { oneCommitPerAppend: { appendsPerSecond: unbatched16.perSecond, ratioToInsertCeiling: ratio(unbatched16.perSecond, ceiling16) } } : {}),
      },
      batch100Events1Writer: { eventsPerSecond: batch1.perSecond, batchesPerSecond: round(batch1.perSecond / 100), ratioToInsertCeiling: ratio(batch1.perSecond, ceiling1) },
      batch100Events16Writers: { eventsPerSecond: batch16.perSecond, batchesPerSecond: round(batch16.perSecond / 100), ratioToInsertCeiling: ratio(batch16.perSecond, ceiling16) },
    },
    insertCeiling: ceiling1 && ceiling16 ? { rowsPerSecond1Connection: ceiling1.perSecond, rowsPerSecond16Connections: ceiling16.perSecond } : null,
  };
}

async function openBenchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `seqflow_bench_${randomBytes(4).toString('hex')}`;
  let admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  let base = adminUrl;
  try {
    await admin.connect();
  } catch {
    const dir = await mkdtemp(path.join(tmpdir(), 'seqflow-bench-'));
    const embedded = await startEmbeddedPostgres(dir, logger);
    base = embedded.url;
    admin = new pg.Client({ connectionString: base });
    await admin.connect();
  }
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const database = await openBenchDatabase();
const pool = new pg.Pool({ connectionString: database.url, max: 24 });
// Dropping the bench database at the end terminates idle connections: expected, not a failure.
pool.on('error', () => undefined);
const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
try {
  const postgresStore = createPostgresEventStore({ pool, connectionString: database.url });
  await postgresStore.migrate();
  await migrateReadModels(db);

  const postgres = await benchStore(postgresStore, pool, createPostgresEventStore({ pool, connectionString: database.url, groupCommit: false }));
  // The peer, same server and database, same load: Emmett's PostgreSQL event store.
  const emmett = await emmettAppends(database.url, 16, 500);
  const ours = postgres.appends.singleEvent16Writers.appendsPerSecond;
  Object.assign(postgres.appends.singleEvent16Writers, { emmett: { appendsPerSecond: emmett.appendsPerSecond, oursToEmmett: round(ours / emmett.appendsPerSecond, 2) } });
  const catchUp = await catchUpThroughput(postgresStore);
  const lag = await projectionLag(postgresStore, db, 300, 8);
  await postgresStore.close();

  // A database of its own for the execution bench, so its events do not mix with the log bench's.
  const executeDatabase = database.url.replace(/\/([^/?]+)(\?.*)?$/, (_m, name: string, query = '') => `/${name}_exec${query}`);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${new URL(executeDatabase).pathname.slice(1)}`);
  let execute: unknown;
  let deliveries: unknown;
  const deliveryDatabase = executeDatabase.replace('_exec', '_hooks');
  await admin.query(`CREATE DATABASE ${new URL(deliveryDatabase).pathname.slice(1)}`);
  let testSuite: unknown;
  const suiteDatabase = executeDatabase.replace('_exec', '_suite');
  await admin.query(`CREATE DATABASE ${new URL(suiteDatabase).pathname.slice(1)}`);
  let mcp: unknown;
  const mcpDatabase = executeDatabase.replace('_exec', '_mcp');
  await admin.query(`CREATE DATABASE ${new URL(mcpDatabase).pathname.slice(1)}`);
  let audit: unknown;
  const auditDatabases = [executeDatabase.replace('_exec', '_unchained'), executeDatabase.replace('_exec', '_chained'), executeDatabase.replace('_exec', '_auditruns')] as const;
  for (const url of auditDatabases) await admin.query(`CREATE DATABASE ${new URL(url).pathname.slice(1)}`);
  let operatorConsole: unknown;
  const consoleDatabase = executeDatabase.replace('_exec', '_console');
  await admin.query(`CREATE DATABASE ${new URL(consoleDatabase).pathname.slice(1)}`);
  try {
    const skipped = 'skipped: not in BENCH_ONLY';
    execute = wanted('execute') ? await benchExecute(executeDatabase) : skipped;
    deliveries = wanted('webhooks') ? await benchDeliveries(deliveryDatabase) : skipped;
    testSuite = wanted('tests') ? await benchTestSuite(suiteDatabase) : skipped;
    mcp = wanted('mcp') ? await benchMcp(mcpDatabase) : skipped;
    audit = wanted('audit') ? { ...(await benchAudit(auditDatabases[0], auditDatabases[1])), ...(await benchAuditRuns(auditDatabases[2])) } : skipped;
    operatorConsole = wanted('console') ? await benchConsole(consoleDatabase) : skipped;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(consoleDatabase).pathname.slice(1)} WITH (FORCE)`);
    for (const url of auditDatabases) await admin.query(`DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(mcpDatabase).pathname.slice(1)} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(suiteDatabase).pathname.slice(1)} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(deliveryDatabase).pathname.slice(1)} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${new URL(executeDatabase).pathname.slice(1)} WITH (FORCE)`);
    await admin.end();
  }

  let kurrentdb: unknown = 'skipped: KURRENTDB_CONNECTION_STRING not set';
  if (process.env.KURRENTDB_CONNECTION_STRING) {
    const store = createKurrentDbEventStore(process.env.KURRENTDB_CONNECTION_STRING);
    kurrentdb = { ...(await benchStore(store, undefined)), subscriberCatchUp: await catchUpThroughput(store) };
    await store.close();
  }

  process.stdout.write(
    `${JSON.stringify(
      {
        machine: { cpus: cpus().length, node: process.version },
        postgres: { ...postgres, subscriberCatchUp: { events: catchUp.count, eventsPerSecond: catchUp.perSecond }, projectionLagUnderLoad: lag },
        execute,
        webhookDeliveries: deliveries,
        testSuite,
        assistantEndpoint: mcp,
        audit,
        operatorConsole,
        kurrentdb,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await db.destroy();
  await database.drop();
}
