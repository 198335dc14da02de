import { type Kysely, sql } from 'kysely';

/**
 * A finished attempt's lease stays, expired, with the attempt's number until the read model shows
 * that attempt ended: a sweep meanwhile would otherwise see the delivery still `pending` and claim it
 * again for nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE delivery_leases ADD COLUMN finished_attempts integer`.execute(db);
}
