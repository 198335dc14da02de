import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Indexes a flow\'s jobs and runs for the public listings\' keyset pages.';

/** The public listings of a flow's jobs and runs page by a keyset over (created_at, execution_id), newest first. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX jobs_by_flow ON jobs (flow_id, created_at DESC, execution_id DESC)`.execute(db);
  await sql`CREATE INDEX runs_by_flow_page ON runs (flow_id, created_at DESC, execution_id DESC)`.execute(db);
  await sql`DROP INDEX runs_by_flow`.execute(db);
}
