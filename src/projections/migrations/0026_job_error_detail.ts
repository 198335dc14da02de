import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = "Adds the detail of a failed job's error (what came from outside: a thrown text, a provider's error body), kept apart from the service's own message so that erasing the run clears it.";

/**
 * ExecutionFailed version 3 splits a failure into the service's words (`message`) and what came
 * from outside (`detail`, sealed under the run's key): the row keeps both, and an erasure sets the
 * detail to null as it does the result. Rows of earlier jobs have none (their message is as it was).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ADD COLUMN error_detail text`.execute(db);
}
