import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Keeps a finished attempt\'s lease until the read model shows the attempt ended.';

/**
 * A finished attempt's lease stays, expired, with the attempt's number until the read model shows
 * that attempt ended: a sweep meanwhile would otherwise see the delivery still `pending` and claim it
 * again for nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE delivery_leases ADD COLUMN finished_attempts integer`.execute(db);
}
