import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { preparingClient } from '../database/preparedStatements.ts';
import pg from 'pg';
import { type ReadRouting, createReadRouting } from '../database/readRouting.ts';
import { trackAppendedPositions } from '../eventstore/appendedPositions.ts';
import type { Logger } from 'pino';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import type { Config } from '../config/config.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../database/embeddedPostgres.ts';
import { resolveMasterKey } from '../database/masterKey.ts';
import { createDatabasePool } from '../database/databasePool.ts';
import { type MigrationPlan, announceMigrations, planMigrations } from './migrationPlan.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { createPostgresEventStore } from '../eventstore/postgres/postgresEventStore.ts';
import { sealingEventStore } from '../eventstore/sealingEventStore.ts';
import { type RunDataKeys, createRunDataKeys } from '../security/runDataKeys.ts';
import { allProjections, projectionGroups } from '../projections/allProjections.ts';
import { migrateReadModels } from '../projections/migrateReadModels.ts';
import { type ProjectionRunner, createProjectionRunner } from '../projections/projectionRunner.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { FlowCatalog } from '../caches/flowCatalog.ts';
import { createLogWatch, type LogWatch } from '../caches/logWatch.ts';
import { createRunnerLease } from '../runs/runnerLease.ts';
import { createProjectionLeases } from '../leases/projectionLeases.ts';
import { createSilentOwnRunSweep } from '../runs/silentOwnRuns.ts';
import { createOrganizationStates, type OrganizationStates } from '../caches/organizationStates.ts';
import { type RunLifecycle, createRunLifecycle } from '../runs/runLifecycle.ts';
import { type WiredEngine, wireEngine } from './engineWiring.ts';
import { type RunService, createRunService } from '../runs/runService.ts';
import { type Supervisor, createSupervisor } from '../supervision/supervisor.ts';
import { type HealthNotes, createHealthNotes } from '../health/healthNotes.ts';
import { type ProcessRole, processReporter } from '../health/processReports.ts';
import { instrumentAppends } from '../observability/instrumentedEventStore.ts';
import { watchStorage } from '../observability/storageWatch.ts';
import { type Watchdog, createWatchdog } from '../watchdog/watchdog.ts';
import { type Metrics, createMetrics } from '../observability/metrics.ts';
import { type Tracing, createTracing } from '../observability/tracing.ts';
import { closeInOrder } from './closeInOrder.ts';
import { forgetErasedKeys } from '../caches/forgetErasedKeys.ts';
import { RETRY_POLICIES, assertRetryPolicies } from '../domain/retry/retryPolicy.ts';
import { packageVersion } from '../config/packageVersion.ts';
import { countJobBacklog } from '../queries/backlogQueries.ts';
import { flowSlugsByIds } from '../queries/flowQueries.ts';
import { configuredProviders } from '../domain/models/modelRoute.ts';
import { type ReadModelsCurrent, readModelsCurrent } from '../projections/readModelsCurrent.ts';

/** How long a server's erasure waits for the read models to reach the log's head (then 503 PROJECTION_TIMEOUT). */
const READ_MODELS_CURRENT_WAIT_MS = 10_000;

/** Everything a process needs, wired once: database, event log, read models, projections. */
export interface Runtime {
  config: Config;
  logger: Logger;
  pool: pg.Pool;
  db: Kysely<ReadModels>;
  eventStore: EventStore;
  projections: ProjectionRunner;
  /** Keeps the process's background tasks running; their states are in /health. */
  supervisor: Supervisor;
  /** What this process knows is wrong with itself and cannot retry away; counted in /health. */
  healthNotes: HealthNotes;
  /** Checks the service's promises (silent runs, claim caps, projections); run by worker processes, and by `seqflow doctor`. */
  watchdog: Watchdog;
  /** The sync runs this process runs for callers, for a clean shutdown. */
  lifecycle: RunLifecycle;
  /** The run use cases every transport starts, follows, polls, cancels and lists runs with. */
  runs: RunService;
  /** Tells the caches what the log changed; started by the processes that serve the API. */
  logWatch: LogWatch;
  /** Organizations' states (provider key, webhook secret), kept while the log watch runs. */
  organizations: OrganizationStates;
  /** The process's Prometheus metrics (served at /metrics). */
  metrics: Metrics;
  /** The process's OpenTelemetry tracer (exporting over OTLP when an endpoint is set). */
  tracing: Tracing;
  /** The flows callers reach, with their versions cached (the engine's own catalog). */
  flows: FlowCatalog;
  commands: CommandDependencies;
  masterKey: Buffer;
  /** Each run's data key: what erasing a run's data removes. */
  runDataKeys: RunDataKeys;
  /** The read models caught up with the log: by this process (the CLI) or by those that run them (a server). */
  readModelsCurrent: ReadModelsCurrent;
  /** The engine and what the API checks before a run. */
  execution: WiredEngine;
  /** Reads that may be a little behind, on read replicas (DATABASE_READ_URLS) as the caller's own writes allow. */
  reads: ReadRouting<ReadModels>;
  /** The highest log position this process has appended (read-your-writes: the answer to a write carries it). */
  appendedPosition: () => number;
  /** 'embedded' when this process uses the embedded PostgreSQL of the data dir. */
  database: 'embedded' | 'external';
  /** The PostgreSQL URL of the read models (and the log), for tools that need connections of their own (shadow read models): the server itself, DATABASE_DIRECT_URL where set. */
  databaseUrl: string;
  /** The migrations this start found to run (and ran), each with what it does. */
  migrations: MigrationPlan;
  close(): Promise<void>;
}

// Postgres `bigint` (int8) as a JS number: positions and counts stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/** What no configuration reaches: only code that opens a runtime can set it. */
export interface OpenRuntimeOptions {
  /**
   * false stores run data unsealed (no erasure possible): only for the benchmark that measures what
   * sealing costs against the same runtime without it (bench/erasureCostBench.ts).
   */
  sealRunData?: boolean;
}

/** `role`: what this process runs as, in the report it publishes on its runner lease (the console's System view). */
export async function openRuntime(config: Config, logger: Logger, role: ProcessRole = 'cli', options: OpenRuntimeOptions = {}): Promise<Runtime> {
  // Every loop's policy is checked before anything runs: a bad one fails the start, naming it.
  assertRetryPolicies(RETRY_POLICIES);
  let embedded: EmbeddedDatabase | undefined;
  const databaseUrl = config.databaseUrl ?? (embedded = await startEmbeddedPostgres(config.dataDir, logger)).url;
  // Behind PgBouncer in transaction mode, a connection that must keep its session goes to the server itself.
  const directUrl = config.databaseDirectUrl ?? databaseUrl;

  // Hot statements prepared once per session, where the sessions are the server's own (not PgBouncer's).
  const pool = createDatabasePool({ connectionString: databaseUrl, max: 20, ...(config.databaseDirectUrl === undefined ? { Client: preparingClient() } : {}) }, logger);
  const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
  try {
    // Planned first, to say what will run before it runs; a schema that is up to date is left alone.
    const migrations = await planMigrations(pool, db, config);
    announceMigrations(logger, migrations);
    const log = await openEventStore(config, pool, directUrl, migrations.eventLog.length > 0);
    if (migrations.readModels.length > 0) await migrateReadModels(db);
    const masterKey = await resolveMasterKey(config.masterKey, config.dataDir);
    const supervisor = createSupervisor({ logger, initialDelayMs: config.restartDelayMs });
    const metrics = createMetrics();
    const tracing = await createTracing(config.tracing, packageVersion());
    const logWatch = createLogWatch({ eventStore: log, supervisor });
    const healthNotes = createHealthNotes();
    // Keys kept in memory are used only while the log watch is current: it makes every process forget an erased run's key.
    const runDataKeys = createRunDataKeys(pool, masterKey, { flushedWithLog: log.kind === 'postgres', trusted: () => logWatch.live });
    logWatch.watch(forgetErasedKeys(runDataKeys));
    // Sealed before the adapter hashes: the chain covers the ciphertext, so an erasure keeps it valid.
    // The highest position this process appended: what an answer to a write tells its caller to read after.
    const sealing = options.sealRunData === false ? log : sealingEventStore(log, runDataKeys);
    const appended = trackAppendedPositions(logWatch.observe(watchStorage(instrumentAppends(sealing, metrics), healthNotes)));
    const eventStore = appended.store;
    const reads = createReadRouting<ReadModels>({ primary: pool, replicaUrls: config.databaseReadUrls, waitMs: config.readWaitMs, logger });
    const organizations = createOrganizationStates(eventStore, logWatch);
    // Unique per process, even under a fixed SEQFLOW_WORKER_ID: a restarted process must not inherit the dead one's runs.
    const runnerId = `${config.jobs.workerId}/${randomBytes(4).toString('hex')}`;
    const projections = createProjectionRunner({ db, eventStore, projections: allProjections, groups: projectionGroups, leases: (hooks) => createProjectionLeases({ db, owner: runnerId, leaseMs: config.projectionLeaseMs, logger, ...hooks }), logger, supervisor });
    // A server's projections run in its workers (maybe another process's): it waits for them, as long as MCP's reads do.
    const current = readModelsCurrent(projections, eventStore, { projectsItself: role === 'cli', waitMs: READ_MODELS_CURRENT_WAIT_MS });
    const commands = { eventStore, now: () => new Date(), defaultCredits: config.defaultCredits, modelProviders: configuredProviders(config) };
    const runnerLease = createRunnerLease({ db, runnerId, leaseMs: config.jobs.runnerLeaseMs, supervisor, report: processReporter(role, { supervisor, projections }) });
    await runnerLease.hold();
    const execution = wireEngine(config, { eventStore, logger, db, replicaReads: { db: reads.db, within: reads.within, appendedPosition: appended.highest }, logWatch, organizations, masterKey, metrics, tracer: tracing.tracer, now: commands.now, runner: runnerLease.id, runDataKeys: options.sealRunData === false ? undefined : runDataKeys });
    const { guard, sandbox } = execution;
    const lifecycle = createRunLifecycle();
    // This process's own runs that nothing works on any more (their end could not be written): ended once the log takes writes again.
    const silentRuns = createSilentOwnRunSweep({ db, engine: { eventStore, now: commands.now }, runner: runnerLease.id, tracked: lifecycle.active, silentMs: config.watchdog.silentRunMs, logger });
    supervisor.supervise('silent-run-sweep', () => silentRuns.start(config.watchdog.intervalMs));
    const runs = createRunService({
      flows: execution.flows,
      engine: execution,
      attachments: { guard, registry: execution.registry, defaultModel: config.execution.defaultModel },
      callbacks: { plainHttpInAllowedRanges: config.webhooks.plainHttpInAllowedRanges },
      lifecycle,
      db,
      readDb: reads.db,
      eventStore,
      commands,
      leaseMs: config.idempotencyLeaseMs,
      logger,
      runDataKeys,
      readModelsCurrent: current,
    });
    const watchdog = createWatchdog({ db, eventStore, projections, logger, bounds: { silentRunMs: config.watchdog.silentRunMs, projectionMaxBehind: config.watchdog.projectionMaxBehind, jobMaxClaims: config.jobs.maxClaims, scheduleOverdueMs: config.schedules.missedAfterMs } });
    metrics.readGaugesFrom({
      projectionLag: () => projections.status(),
      jobBacklog: () => countJobBacklog(db),
      sandboxQueued: () => sandbox.queued(),
      watchdogFindings: () => watchdog.last()?.counts,
      flowNames: async (flowIds) => new Map([...(await flowSlugsByIds(db, flowIds))].map(([id, s]) => [id, `${s.org}/${s.project}/${s.flow}`])),
    });

    return {
      config,
      logger,
      pool,
      db,
      reads,
      appendedPosition: appended.highest,
      eventStore,
      projections,
      supervisor,
      healthNotes,
      watchdog,
      lifecycle,
      runs,
      logWatch,
      metrics,
      tracing,
      organizations,
      flows: execution.flows,
      commands,
      masterKey,
      runDataKeys,
      readModelsCurrent: current,
      execution,
      database: embedded ? 'embedded' : 'external',
      databaseUrl: directUrl,
      migrations,
      async close() {
        await closeInOrder(
          [
            // The projection runners this process holds are given back at once, not left to expire.
            { name: 'the projection runners (their leases expire by themselves)', close: () => projections.stop() },
            { name: 'the runner lease (it expires by itself)', close: () => runnerLease.close() },
            { name: 'the supervised tasks', close: () => supervisor.stop() },
            { name: 'tracing', close: () => tracing.close() }, // exports the spans of the work that just drained
            { name: 'the code sandbox', close: () => sandbox.close() },
            { name: 'the address guard', close: () => guard.close() },
            { name: 'the event log', close: () => eventStore.close() },
            { name: 'the read replicas', close: () => reads.close() },
            { name: 'the database pool', close: () => db.destroy() },
            { name: 'the embedded PostgreSQL', close: async () => embedded?.stop() },
          ],
          logger,
        );
      },
    };
  } catch (error) {
    await db.destroy().catch(() => undefined);
    await embedded?.stop();
    throw error;
  }
}

/** `directUrl`: where the log's LISTEN connection goes (the server itself, never a transaction pooler). */
async function openEventStore(config: Config, pool: pg.Pool, directUrl: string, migrate: boolean): Promise<EventStore> {
  if (config.kurrentDbConnectionString) {
    // Loaded only when configured: its gRPC client is large, and most processes never need it.
    const { createKurrentDbEventStore } = await import('../eventstore/kurrentdb/kurrentDbEventStore.ts');
    return createKurrentDbEventStore(config.kurrentDbConnectionString);
  }
  const store = createPostgresEventStore({ pool, connectionString: directUrl });
  if (migrate) await store.migrate();
  return store;
}
