import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the retention periods read model and an index of the runs to erase.';

/**
 * Read model: each organization's retention period for its runs' personal data (`project_id` ''),
 * and its projects' where set (RetentionPeriodSet). `run_days` null: kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE retention_periods (
      organization_id text NOT NULL,
      project_id text NOT NULL,
      run_days integer,
      set_at timestamptz NOT NULL,
      PRIMARY KEY (organization_id, project_id)
    )
  `.execute(db);
  // The sweep looks for ended runs not yet erased, oldest first.
  await sql`CREATE INDEX runs_to_erase ON runs (ended_at) WHERE data_erased_at IS NULL AND ended_at IS NOT NULL`.execute(db);
}
