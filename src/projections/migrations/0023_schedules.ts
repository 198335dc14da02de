import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the schedules read model and records which schedule started a run (runs.schedule_id).';

/**
 * Read model: each flow's schedules (ScheduleAdded and what followed), with the next firing's time,
 * which the schedule sweep looks up by; and the schedule a run was started by, for the listings.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE schedules (
      id text PRIMARY KEY,
      organization_id text NOT NULL,
      project_id text NOT NULL,
      flow_id text NOT NULL,
      cron text NOT NULL,
      timezone text NOT NULL,
      missed text NOT NULL,
      callback_url text,
      status text NOT NULL,
      created_at timestamptz NOT NULL,
      accounted_until timestamptz NOT NULL,
      next_firing_at timestamptz,
      last_fired_for timestamptz,
      last_execution_id text,
      last_error_code text,
      fired_count integer NOT NULL DEFAULT 0,
      skipped_count integer NOT NULL DEFAULT 0
    )
  `.execute(db);
  await sql`CREATE INDEX schedules_due ON schedules (next_firing_at) WHERE status = 'active'`.execute(db);
  await sql`CREATE INDEX schedules_by_flow ON schedules (flow_id)`.execute(db);
  await db.schema.alterTable('runs').addColumn('schedule_id', 'text').execute();
}
