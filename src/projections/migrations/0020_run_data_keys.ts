import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the run data keys table (crypto-shredding) and the erasure dates of runs and jobs; runs recorded before it have no key and cannot be erased.';

/**
 * Each run's data key (issue 39, crypto-shredding), sealed under the master key: `wrapped_key` is
 * NULL once the run's data is erased, and the row stays to say when. Not a projection (the keys are
 * not in the log, so nothing could rebuild them): a read-model rebuild never touches this table.
 * `runs.data_erased_at` and `jobs.data_erased_at`: the run's RunDataErased, projected.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE run_data_keys (
      execution_id text PRIMARY KEY,
      wrapped_key text,
      created_at timestamptz NOT NULL DEFAULT now(),
      erased_at timestamptz
    )
  `.execute(db);
  await db.schema.alterTable('runs').addColumn('data_erased_at', 'timestamptz').execute();
  await db.schema.alterTable('jobs').addColumn('data_erased_at', 'timestamptz').execute();
}
