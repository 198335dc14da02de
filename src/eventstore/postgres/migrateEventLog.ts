import { Kysely, type Migration, type MigrationProvider, Migrator, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { type PendingMigration, pendingOf } from '../../database/pendingMigrations.ts';
import * as eventLog0001 from './migrations/0001_event_log.ts';
import * as eventLog0002 from './migrations/0002_hash_chain.ts';
import * as eventLog0003 from './migrations/0003_append_batch.ts';
import * as eventLog0004 from './migrations/0004_own_horizon.ts';
import * as eventLog0005 from './migrations/0005_kept_plans.ts';

const migrations: Record<string, Migration & { summary: string }> = {
  '0001_event_log': eventLog0001,
  '0002_hash_chain': eventLog0002,
  '0003_append_batch': eventLog0003,
  '0004_own_horizon': eventLog0004,
  '0005_kept_plans': eventLog0005,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

const migratorOf = (db: Kysely<unknown>) =>
  new Migrator({ db, provider, migrationTableName: 'seqflow_eventlog_migration', migrationLockTableName: 'seqflow_eventlog_migration_lock' });

/** Brings the event log's schema up to date; safe to run from several processes at once. */
export async function migrateEventLog(pool: pg.Pool): Promise<void> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: wrapWithoutEnd(pool) }) });
  const { error } = await migratorOf(db).migrateToLatest();
  await db.destroy();
  if (error) throw error;
}

/** The event log's migrations that have not run, in order, each with what it does; changes nothing. */
export async function pendingEventLogMigrations(pool: pg.Pool): Promise<PendingMigration[]> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: wrapWithoutEnd(pool) }) });
  try {
    return pendingOf(await migratorOf(db).getMigrations(), migrations);
  } finally {
    await db.destroy();
  }
}

/** Kysely ends its pool on destroy(); the shared pool must outlive this migration run. */
const wrapWithoutEnd = (pool: pg.Pool) =>
  ({ connect: () => pool.connect(), end: async () => undefined }) as unknown as pg.Pool;
