/**
 * The event log's figures: appends against this machine's ceiling (plain single-row INSERTs, each
 * committed, into an equivalent table from the same number of connections), a subscriber's
 * catch-up, and projection lag under a steady command rate.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import pino from 'pino';
import { handleCommand } from '../src/commands/commandHandler.ts';
import { apiKey } from '../src/domain/apiKeys/apiKey.ts';
import { apiKeyStream } from '../src/domain/apiKeys/apiKeyEvents.ts';
import type { EventStore } from '../src/eventstore/eventStore.ts';
import { allProjections, projectionGroups } from '../src/projections/allProjections.ts';
import { createProjectionLeases } from '../src/leases/projectionLeases.ts';
import { type GroupHooks, createProjectionRunner } from '../src/projections/projectionRunner.ts';
import type { ReadModels } from '../src/projections/readModelSchema.ts';
import { createSupervisor } from '../src/supervision/supervisor.ts';
import { benchEvent } from './benchEvent.ts';
import { pollUntil } from './deadline.ts';
import { percentile } from './percentile.ts';

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

export async function catchUpThroughput(store: EventStore) {
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

const DRAIN_DEADLINE_MS = 60_000;

/** Commands at a steady rate while the projections run: how long until each command's events are in the read models. */
/**
 * How far behind the read models are while commands arrive at `ratePerSecond`: with `runners` > 1,
 * that many projection runners (as worker processes run them: the five groups shared under leases,
 * each with its own checkpoints) in this process instead of one runner of every projection.
 */
export async function projectionLag(store: EventStore, db: Kysely<ReadModels>, ratePerSecond: number, seconds: number, runners = 1) {
  // A supervisor per runner, as each worker process has its own (task names are per supervisor).
  const shared = (i: number) => ({ groups: projectionGroups, leases: (hooks: GroupHooks) => createProjectionLeases({ db, owner: `bench-runner-${i}`, leaseMs: 10_000, logger, ...hooks }) });
  const all = Array.from({ length: runners }, (_, i) => createProjectionRunner({ db, eventStore: store, projections: allProjections, logger, supervisor: createSupervisor({ logger }), ...(runners > 1 ? shared(i) : {}) }));
  await all[0]!.catchUp();
  await Promise.all(all.map((r) => r.start()));
  if (runners > 1) {
    // Measured once the groups are shared (each runner holds its share), not while they move.
    await pollUntil(async () => {
      const owners = await db
        .selectFrom('projection_leases')
        .select(['owner', (eb) => eb.fn.countAll<number>().as('held')])
        .where('runner_name', 'not like', 'member:%')
        .where('done_at', 'is', null)
        .where('expires_at', '>', new Date())
        .groupBy('owner')
        .execute();
      return { ok: owners.length === runners && owners.every((o) => Number(o.held) <= Math.ceil(projectionGroups.length / runners)), seen: JSON.stringify(owners) };
    }, 60_000, 'the projection groups to be shared between the runners', 100);
  }
  const runner = { stop: () => Promise.all(all.map((r) => r.stop())) };
  const deps = { eventStore: store, now: () => new Date() };
  const lags: number[] = [];
  // Each command's lag by when it was sent: a lag that grows from the first quarter to the last is falling behind.
  const bySent: { start: number; lag: number }[] = [];
  const pending: { position: number; start: number }[] = [];
  let stopSampling = false;

  // Once the commands are sent, the projections get this long to reach the last of them; a stalled
  // projection fails the measurement, naming what it waited for, instead of hanging the bench.
  let drainDeadline = Infinity;
  const sampler = (async () => {
    while (!stopSampling || pending.length > 0) {
      if (performance.now() > drainDeadline) {
        const checkpoints = await db.selectFrom('projection_checkpoints').selectAll().execute();
        throw new Error(`projection lag: ${pending.length} commands not projected ${DRAIN_DEADLINE_MS / 1000} s after the last was sent; checkpoints: ${JSON.stringify(checkpoints)}`);
      }
      const row = await db.selectFrom('projection_checkpoints').select((eb) => eb.fn.min('position').as('position')).executeTakeFirst();
      const reached = Number(row?.position ?? 0);
      const now = performance.now();
      for (let i = pending.length - 1; i >= 0; i--) {
        if (pending[i]!.position <= reached) {
          lags.push(now - pending[i]!.start);
          bySent.push({ start: pending[i]!.start, lag: now - pending[i]!.start });
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
  drainDeadline = performance.now() + DRAIN_DEADLINE_MS;
  await sampler.finally(() => runner.stop());
  lags.sort((a, b) => a - b);
  bySent.sort((a, b) => a.start - b.start);
  const quarter = Math.max(1, Math.floor(bySent.length / 4));
  const meanLag = (part: typeof bySent) => part.reduce((sum, c) => sum + c.lag, 0) / Math.max(1, part.length);
  const growthMs = round(meanLag(bySent.slice(-quarter)) - meanLag(bySent.slice(0, quarter)), 1);
  return { commandsPerSecond: ratePerSecond, runners, seconds, commands: total, p50Ms: round(percentile(lags, 50), 1), p99Ms: round(percentile(lags, 99), 1), maxMs: round(lags.at(-1) ?? 0, 1), growthFirstToLastQuarterMs: growthMs };
}

export async function benchStore(store: EventStore, pool: pg.Pool | undefined, oneCommitPerAppend?: EventStore) {
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
