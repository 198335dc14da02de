import { type Kysely, sql } from 'kysely';

/** A run's deliveries, for the console's runs listing (dead-lettered chips) and run detail. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_by_run ON webhook_deliveries (execution_id)`.execute(db);
}
