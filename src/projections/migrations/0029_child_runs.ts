import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Adds the run that started a child run (flow blocks), so erasure and the interrupted-run sweep follow the link.';

/**
 * Sub-flows (issue 61): a child run's row names its parent run. Erasure reads it both ways (a
 * parent's children, a child's parent), and the interrupted-run sweep ends a child whose parent
 * ended without it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE runs ADD COLUMN parent_execution_id text`.execute(db);
  await sql`CREATE INDEX runs_parent_idx ON runs (parent_execution_id) WHERE parent_execution_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS runs_parent_idx`.execute(db);
  await sql`ALTER TABLE runs DROP COLUMN IF EXISTS parent_execution_id`.execute(db);
}
