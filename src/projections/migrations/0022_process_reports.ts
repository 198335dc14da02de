import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Lets each process publish its role, tasks and projection lag on its runner lease, for the console\'s System view.';

/**
 * Each live process's report (role, host, pid, version, supervised tasks, projection lag) beside the
 * runner lease it renews: the operators' view of every process reads the table, not one process's
 * memory. Not a projection: the row lives and dies with the lease.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE runner_leases ADD COLUMN report jsonb`.execute(db);
}
