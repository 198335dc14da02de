import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Indexes deliveries by run.';

/** A run's deliveries, for the console's runs listing (dead-lettered chips) and run detail. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_by_run ON webhook_deliveries (execution_id)`.execute(db);
}
