import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = "Adds approvals (approval blocks' waits, their deadlines and decisions) and what a waiting job waits for.";

/**
 * Approval blocks (issue 61): a run that waits for a person has a row here while it waits and after,
 * with its deadline on the database's clock (the sweep compares it with now()); the text the
 * approver reads and their comment stay in the run's sealed events, never here, so an erasure has
 * no copy to chase. A job (or a sync run continued as one) that waits says so in `waiting_for`:
 * job runners do not claim it until it is decided.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ADD COLUMN waiting_for jsonb`.execute(db);
  await db.schema
    .createTable('approvals')
    .addColumn('execution_id', 'text', (c) => c.notNull())
    .addColumn('block_name', 'text', (c) => c.notNull())
    .addColumn('step_index', 'integer', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('approvers', 'jsonb', (c) => c.notNull())
    .addColumn('on_timeout', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'timestamptz', (c) => c.notNull())
    .addColumn('due_at', 'timestamptz', (c) => c.notNull())
    .addColumn('decided_at', 'timestamptz')
    .addColumn('decided_by', 'text')
    .addPrimaryKeyConstraint('approvals_pk', ['execution_id', 'block_name'])
    .execute();
  await sql`CREATE INDEX approvals_due ON approvals (due_at) WHERE status = 'waiting'`.execute(db);
  await sql`CREATE INDEX approvals_waiting_by_organization ON approvals (organization_id, requested_at) WHERE status = 'waiting'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('approvals').ifExists().execute();
  await sql`ALTER TABLE jobs DROP COLUMN IF EXISTS waiting_for`.execute(db);
}
