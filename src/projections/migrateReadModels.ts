import { type Kysely, type Migration, Migrator } from 'kysely';
import { type PendingMigration, pendingOf } from '../database/pendingMigrations.ts';
import * as m0001 from './migrations/0001_tenancy_and_flows.ts';
import * as m0002 from './migrations/0002_credit_ledger.ts';
import * as m0003 from './migrations/0003_jobs.ts';
import * as m0004 from './migrations/0004_deliveries.ts';
import * as m0005 from './migrations/0005_projection_stalls.ts';
import * as m0006 from './migrations/0006_test_cases.ts';
import * as m0007 from './migrations/0007_test_runs.ts';
import * as m0008 from './migrations/0008_flow_receives_images.ts';
import * as m0009 from './migrations/0009_runs.ts';
import * as m0010 from './migrations/0010_deliveries_by_run.ts';
import * as m0011 from './migrations/0011_delivery_lease_finished.ts';
import * as m0012 from './migrations/0012_flow_listings.ts';
import * as m0013 from './migrations/0013_uniform_leases.ts';
import * as m0014 from './migrations/0014_runner_leases.ts';
import * as m0015 from './migrations/0015_oauth_store.ts';
import * as m0016 from './migrations/0016_backtests.ts';
import * as m0017 from './migrations/0017_delivery_receiver_host.ts';
import * as m0018 from './migrations/0018_ledger_cost.ts';
import * as m0019 from './migrations/0019_run_started_via.ts';
import * as m0020 from './migrations/0020_run_data_keys.ts';
import * as m0021 from './migrations/0021_retention_periods.ts';
import * as m0022 from './migrations/0022_process_reports.ts';
import * as m0023 from './migrations/0023_schedules.ts';
import * as m0024 from './migrations/0024_projection_leases.ts';
import * as m0025 from './migrations/0025_deliveries_due_order.ts';
import * as m0026 from './migrations/0026_job_error_detail.ts';
import * as m0027 from './migrations/0027_backtest_erased_runs.ts';
import * as m0028 from './migrations/0028_approvals.ts';
import * as m0029 from './migrations/0029_child_runs.ts';
import type { ReadModels } from './readModelSchema.ts';

const migrations: Record<string, Migration & { summary: string }> = { '0001_tenancy_and_flows': m0001, '0002_credit_ledger': m0002, '0003_jobs': m0003, '0004_deliveries': m0004, '0005_projection_stalls': m0005, '0006_test_cases': m0006, '0007_test_runs': m0007, '0008_flow_receives_images': m0008, '0009_runs': m0009, '0010_deliveries_by_run': m0010, '0011_delivery_lease_finished': m0011, '0012_flow_listings': m0012, '0013_uniform_leases': m0013, '0014_runner_leases': m0014, '0015_oauth_store': m0015, '0016_backtests': m0016, '0017_delivery_receiver_host': m0017, '0018_ledger_cost': m0018, '0019_run_started_via': m0019, '0020_run_data_keys': m0020, '0021_retention_periods': m0021, '0022_process_reports': m0022, '0023_schedules': m0023, '0024_projection_leases': m0024, '0025_deliveries_due_order': m0025, '0026_job_error_detail': m0026, '0027_backtest_erased_runs': m0027, '0028_approvals': m0028, '0029_child_runs': m0029 };

/**
 * Brings the read models' schema up to date (kysely Migrator; safe from several processes).
 * `schema`: a shadow copy's own schema, which then also holds its migration bookkeeping.
 */
export async function migrateReadModels(db: Kysely<ReadModels>, schema?: string): Promise<string[]> {
  const { error, results } = await migratorOf(db, schema).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The read models' migrations that have not run, in order, each with what it does; changes nothing. */
export async function pendingReadModelMigrations(db: Kysely<ReadModels>): Promise<PendingMigration[]> {
  return pendingOf(await migratorOf(db).getMigrations(), migrations);
}

const migratorOf = (db: Kysely<ReadModels>, schema?: string) =>
  new Migrator({
    db,
    ...(schema ? { migrationTableSchema: schema } : {}),
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'seqflow_readmodel_migration',
    migrationLockTableName: 'seqflow_readmodel_migration_lock',
  });
