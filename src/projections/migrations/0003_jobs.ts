import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the jobs read model and its leases.';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Read model: /jobs runs and their state, projected from their execution streams.
  await db.schema
    .createTable('jobs')
    .addColumn('execution_id', 'text', (c) => c.primaryKey())
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('result', 'jsonb')
    .addColumn('failure_reason', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('duration_ms', 'integer')
    .execute();
  await sql`CREATE INDEX jobs_open ON jobs (created_at) WHERE status IN ('started', 'running')`.execute(db);

  // Not a read model: which worker holds which job, until when. Owned by the job runners.
  await db.schema
    .createTable('job_leases')
    .addColumn('execution_id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('claims', 'integer', (c) => c.notNull())
    .addColumn('done_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_leases').ifExists().execute();
  await db.schema.dropTable('jobs').ifExists().execute();
}
