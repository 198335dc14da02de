import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Gives deliveries the same lease columns as jobs (claims, finished attempt).';

/**
 * Jobs and deliveries share one lease mechanism (src/leases): a delivery's lease now counts its
 * claims and records when its attempt finished, as a job's does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE delivery_leases ADD COLUMN claims integer NOT NULL DEFAULT 1, ADD COLUMN done_at timestamptz`.execute(db);
}
