import { randomBytes, randomUUID } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { verifyExport } from '../src/audit/exportVerification.ts';
import { verifyLog } from '../src/audit/logVerification.ts';
import { replayRecord } from '../src/audit/runAudit.ts';
import { exportRun } from '../src/audit/runExport.ts';
import { loadRunRecord } from '../src/audit/runRecord.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { prepareExecution } from '../src/execution/flowEngine.ts';

import { allProjections } from '../src/projections/allProjections.ts';
import { verifyReadModels } from '../src/projections/readModelVerification.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import type { EventToAppend } from '../src/eventstore/eventStore.ts';
import * as eventLog0001 from '../src/eventstore/postgres/migrations/0001_event_log.ts';
import { appendToStream } from '../src/eventstore/postgres/appendToStream.ts';
import { createPostgresEventStore } from '../src/eventstore/postgres/postgresEventStore.ts';
import { benchEvent } from './benchEvent.ts';

const WRITERS = 16;
const PER_WRITER = 150;
const VERIFY_EVENTS = 50_000;

/** `WRITERS` concurrent writers, each appending single events to a stream of its own; appends per second. */
async function singleEventAppends(append: (stream: string, e: EventToAppend, expected: number) => Promise<void>) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const stream = `bench-${randomUUID()}`;
      for (let i = 0; i < PER_WRITER; i++) await append(stream, benchEvent(), i - 1);
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
      await store.append(`verify-${written % 5000}`, Array.from({ length: 100 }, () => benchEvent()), 'any');
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

const LOOP_ITEMS = 498;
const PROJECTED_EVENTS = 100_000;

/**
 * Audits of a big run and a big log: export + verify of one run of about 1,000 events (a loop of
 * 498 passthrough items), the replay rate over it, and `projections verify` (a shadow rebuild and
 * the table-by-table comparison) over a log of 100,000 projected events (credit grants across 100
 * organizations, appended in batches).
 */
export async function benchAuditRuns(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), SEQFLOW_LOOP_MAX_ITEMS: String(LOOP_ITEMS), LOG_LEVEL: 'silent' });
  const runtime = await openRuntime(config, pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }));
  const principal = { principal: { kind: 'system' as const, id: 'bench' } };
  try {
    const deps = runtime.commands;
    await createOrganization(deps, { slug: 'bench', name: 'Bench' }, principal);
    await createProject(deps, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
    const steps = [{ block: { name: 'split', processor_type: 'code', code: `return { items: Array.from({ length: ${LOOP_ITEMS} }, (_, i) => i) };` } }, { loop: { over: 'previous_output.items', block: { name: 'each', processor_type: 'passthrough' } } }];
    const flow = await importFlow(deps, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'big', name: 'Big', steps }, production: true }, principal);
    await runtime.projections.catchUp();
    const version = await runtime.db.selectFrom('flows').select(['organization_id', 'project_id', 'production_version_id']).where('id', '=', flow.flowId).executeTakeFirstOrThrow();
    const executionId = randomUUID();
    const prepared = await prepareExecution(runtime.execution, {
      executionId, flowId: flow.flowId, versionId: version.production_version_id!, versionNumber: 1, organizationId: version.organization_id, projectId: version.project_id,
      steps: await runtime.flows.versionSteps(version.production_version_id!), message: 'm', parameters: {}, attachments: [], tools: undefined, mode: 'sync', apiKeyId: null, principal: principal.principal,
    });
    const outcome = await prepared.start();
    if (outcome.status !== 'completed') throw new Error(`the bench run ${outcome.status}: ${JSON.stringify(outcome)}`);

    const exportStarted = performance.now();
    const text = `${(await exportRun(runtime, executionId)).join('\n')}\n`;
    const exportMs = performance.now() - exportStarted;
    const verifyStarted = performance.now();
    const verified = verifyExport(text);
    const verifyMs = performance.now() - verifyStarted;
    if (!verified.ok) throw new Error(`the bench export does not verify: ${verified.failure?.reason}`);
    const record = await loadRunRecord(runtime.eventStore, executionId);
    const replayStarted = performance.now();
    for (let i = 0; i < 10; i++) if (replayRecord(record).divergence) throw new Error('the bench run does not replay');
    const replaySeconds = (performance.now() - replayStarted) / 1000;

    for (let org = 0; org < 100; org++) {
      const { id } = await createOrganization(deps, { slug: `grants-${org}`, name: `Grants ${org}` }, principal);
      for (let batch = 0; batch < PROJECTED_EVENTS / 100 / 100; batch++) {
        const grants = Array.from({ length: 100 }, (_, i) => ({ id: randomUUID(), type: 'CreditsGranted', schemaVersion: 1, data: { organizationId: id, tokens: i + 1, note: null }, metadata: { correlationId: randomUUID(), causationId: null, principal: principal.principal, occurredAt: new Date().toISOString() } }));
        await runtime.eventStore.append(`org-${id}`, grants, 'stream_exists');
      }
    }
    await runtime.projections.catchUp();
    const projectionsStarted = performance.now();
    const projections = await verifyReadModels({ db: runtime.db, eventStore: runtime.eventStore, projections: allProjections, logger: runtime.logger, databaseUrl: runtime.databaseUrl });
    const projectionsSeconds = (performance.now() - projectionsStarted) / 1000;
    if (!projections.ok) throw new Error('the bench read models do not verify');
    const events = record.recorded.length;
    return {
      runExport: { events, lines: verified.lines, bytes: Buffer.byteLength(text), exportMs: Math.round(exportMs), verifyMs: Math.round(verifyMs) },
      replay: { eventsPerSecond: Math.round((events * 10) / replaySeconds) },
      projectionsVerify: { logEvents: await runtime.eventStore.headPosition(), seconds: Number(projectionsSeconds.toFixed(1)) },
    };
  } finally {
    await runtime.close();
  }
}
