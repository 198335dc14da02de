import { type Kysely, sql } from 'kysely';

/**
 * Jobs and deliveries share one lease mechanism (src/leases): a delivery's lease now counts its
 * claims and records when its attempt finished, as a job's does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE delivery_leases ADD COLUMN claims integer NOT NULL DEFAULT 1, ADD COLUMN done_at timestamptz`.execute(db);
}
