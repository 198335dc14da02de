import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the test runs read model.';

/** Read model: test runs and how they ended, by flow and target version (what the promotion gate asks). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('test_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('test_case_id', 'text', (c) => c.notNull())
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('execution_id', 'text', (c) => c.notNull())
    .addColumn('target_kind', 'text', (c) => c.notNull())
    .addColumn('target_version_id', 'text')
    .addColumn('passed', 'boolean')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await sql`CREATE INDEX test_runs_gate ON test_runs (flow_id, target_version_id, test_case_id, finished_at DESC)`.execute(db);
}
