import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { createDatabasePool } from '../database/databasePool.ts';
import { startEmbeddedPostgres } from '../database/embeddedPostgres.ts';
import type { PendingMigration } from '../database/pendingMigrations.ts';
import { pendingEventLogMigrations } from '../eventstore/postgres/migrateEventLog.ts';
import { pendingReadModelMigrations } from '../projections/migrateReadModels.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** What migrating would do now: the event log's migrations (none on KurrentDB, whose log has no schema) and the read models'. */
export interface MigrationPlan {
  eventLog: PendingMigration[];
  readModels: PendingMigration[];
}

export async function planMigrations(pool: pg.Pool, db: Kysely<ReadModels>, config: Pick<Config, 'kurrentDbConnectionString'>): Promise<MigrationPlan> {
  return { eventLog: config.kurrentDbConnectionString ? [] : await pendingEventLogMigrations(pool), readModels: await pendingReadModelMigrations(db) };
}

/** Says, before they run, which migrations a start is about to run and what each does. */
export function announceMigrations(logger: Pick<Logger, 'info'>, plan: MigrationPlan): void {
  for (const [schema, pending] of [['event log', plan.eventLog], ['read models', plan.readModels]] as const) {
    for (const migration of pending) logger.info({ schema, migration: migration.name }, `migrating: ${migration.summary}`);
  }
}

/** `seqflow migrate --plan`: the plan on the configured database (starting the embedded one if that is it), changing nothing. */
export async function migrationPlanOf(config: Config, logger: Logger): Promise<MigrationPlan> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir, logger);
  const pool = createDatabasePool({ connectionString: config.databaseUrl ?? embedded!.url, max: 2 }, logger);
  const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
  try {
    return await planMigrations(pool, db, config);
  } finally {
    await db.destroy();
    await embedded?.stop();
  }
}
