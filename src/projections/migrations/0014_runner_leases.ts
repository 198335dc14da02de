import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the runner leases (each process\'s) and records each run\'s runner.';

/**
 * Every run has an owner. A sync, step or test run is run by the process that took its request
 * (or its resume): that process holds a runner lease (src/leases) while it is up, and its run
 * events name it (`metadata.runner`). A run whose runner's lease has expired cannot end by itself:
 * a sweep records it failed (RUN_INTERRUPTED). Jobs have their own leases and takeover.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE runner_leases (
      runner_id text PRIMARY KEY,
      owner text NOT NULL,
      expires_at timestamptz NOT NULL,
      claims integer NOT NULL DEFAULT 1,
      done_at timestamptz
    )`.execute(db);
  await sql`ALTER TABLE runs ADD COLUMN runner text`.execute(db);
  // The sweep's question: running runs (other than jobs) by runner; a small partial index.
  await sql`CREATE INDEX runs_running_by_runner ON runs (runner) WHERE status = 'running' AND mode <> 'async'`.execute(db);
}
