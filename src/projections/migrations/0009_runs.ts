import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the runs read model (every run, its state and how it was started).';

/** Read model: every run (sync, /jobs, /step, test), its state and how it was started, for the operators' runs listing. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('runs')
    .addColumn('execution_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('version_number', 'integer', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('test_run_id', 'text')
    .addColumn('rerun_of', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failure_code', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ended_at', 'timestamptz')
    .addColumn('duration_ms', 'integer')
    .execute();
  await sql`CREATE INDEX runs_listing ON runs (created_at DESC, execution_id DESC)`.execute(db);
  await sql`CREATE INDEX runs_by_flow ON runs (flow_id, created_at DESC)`.execute(db);
  await sql`CREATE INDEX runs_by_org ON runs (organization_id, created_at DESC)`.execute(db);
}
