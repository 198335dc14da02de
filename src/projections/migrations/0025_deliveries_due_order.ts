import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = "Indexes open webhook deliveries in the order dispatchers claim them (when each is due), replacing the index on their retry time alone; the table is locked for writes while the index is built.";

/**
 * A dispatcher's claim (src/workers/deliveryClaims.ts) takes the oldest due deliveries:
 * `ORDER BY coalesce(next_attempt_at, created_at) LIMIT n`. With this index PostgreSQL walks them
 * in that order and stops at the limit; without it, every claim read and sorted every open
 * delivery. The index on `next_attempt_at` alone served only that claim, which no longer uses it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_due_order ON webhook_deliveries ((coalesce(next_attempt_at, created_at))) WHERE status IN ('pending', 'failed_retry', 'in_flight')`.execute(db);
  await sql`DROP INDEX webhook_deliveries_due`.execute(db);
}
