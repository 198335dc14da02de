import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Counts the runs a backtest skipped because their data was erased before their comparison was recorded.';

/**
 * BacktestRunSkipped marks a chosen run as not compared (its data was erased): its pair row takes
 * the outcome `erased` and the backtest counts it apart, so the promotion gate's share of changed
 * answers is of the runs compared. Earlier backtests skipped none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE backtests ADD COLUMN erased integer NOT NULL DEFAULT 0`.execute(db);
}
