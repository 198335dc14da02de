import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the backtests read models and records the run a test case was made from.';

/**
 * Backtests (issue 27): each backtest with its running summary, one row per replayed run (the pair's
 * outcome and changed paths; the results stay in the runs' own streams), and the backtest a run of
 * mode `backtest` belongs to; the run a test case was made from.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE runs ADD COLUMN backtest_id text`.execute(db);
  // A test case made from a recorded run keeps a link to it.
  await sql`ALTER TABLE test_cases ADD COLUMN from_execution_id text`.execute(db);
  await sql`
    CREATE TABLE backtests (
      id text PRIMARY KEY,
      flow_id text NOT NULL,
      organization_id text NOT NULL,
      project_id text NOT NULL,
      target_kind text NOT NULL,
      target_version_id text,
      target_version_number integer,
      selection jsonb NOT NULL,
      only_completed boolean NOT NULL,
      judge jsonb,
      repeat_of text,
      runner text,
      status text NOT NULL,
      total integer NOT NULL,
      same integer NOT NULL DEFAULT 0,
      different integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      -- different answers the backtest's judge scored as not mattering (the gate does not count them)
      accepted integer NOT NULL DEFAULT 0,
      started_at timestamptz NOT NULL,
      finished_at timestamptz
    )`.execute(db);
  // A flow's backtests newest first (the console's panel, the promotion gate's latest of a version).
  await sql`CREATE INDEX backtests_by_flow ON backtests (flow_id, started_at DESC)`.execute(db);
  // The interrupted-backtest sweep's question: running ones by runner.
  await sql`CREATE INDEX backtests_running ON backtests (runner) WHERE status = 'running'`.execute(db);
  await sql`
    CREATE TABLE backtest_pairs (
      backtest_id text NOT NULL,
      position integer NOT NULL,
      execution_id text NOT NULL,
      backtest_execution_id text NOT NULL,
      outcome text,
      changes jsonb,
      more integer,
      original jsonb,
      candidate jsonb,
      judge jsonb,
      compared_at timestamptz,
      PRIMARY KEY (backtest_id, position)
    )`.execute(db);
}
