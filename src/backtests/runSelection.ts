import type { Kysely } from 'kysely';
import { type BacktestSelection, MAX_BACKTEST_RUNS } from '../domain/backtests/backtestEvents.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { productionModes } from '../domain/execution/runKind.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/**
 * The recorded runs a selection names, oldest first: ended production runs of the flow (never test
 * or backtest runs, never a run still going, never one whose data was erased), only completed ones when asked. Read from the runs
 * read model; the backtest records the ids it chose, so a repeat replays the same runs whatever
 * has happened since.
 */
export async function selectRuns(db: Kysely<ReadModels>, flowId: string, selection: BacktestSelection, onlyCompleted: boolean): Promise<string[]> {
  let query = db
    .selectFrom('runs')
    .select(['execution_id', 'created_at'])
    .where('flow_id', '=', flowId)
    .where('mode', 'in', productionModes)
    .where('status', 'in', onlyCompleted ? ['completed'] : ['completed', 'failed'])
    // An erased run has no input left to replay.
    .where('data_erased_at', 'is', null);
  if (selection.kind === 'executions') {
    const rows = await query.where('execution_id', 'in', selection.executionIds).execute();
    const found = new Set(rows.map((r) => r.execution_id));
    const missing = selection.executionIds.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new ApiError('BACKTEST_NO_RUNS', `not ended production runs of this flow${onlyCompleted ? ' that completed' : ''} (or their data was erased): ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ` and ${missing.length - 10} more` : ''}`, { executionIds: missing });
    }
    return [...new Set(selection.executionIds)];
  }
  if (selection.kind === 'last') {
    const rows = await query.orderBy('created_at', 'desc').orderBy('execution_id', 'desc').limit(selection.count).execute();
    return rows.reverse().map((r) => r.execution_id);
  }
  if (!(Date.parse(selection.since) < Date.parse(selection.until))) throw new ApiError('VALIDATION_FAILED', '`since` must be before `until`');
  query = query.where('created_at', '>=', new Date(selection.since)).where('created_at', '<', new Date(selection.until));
  const rows = await query.orderBy('created_at', 'asc').orderBy('execution_id', 'asc').limit(MAX_BACKTEST_RUNS + 1).execute();
  if (rows.length > MAX_BACKTEST_RUNS) throw new ApiError('VALIDATION_FAILED', `that window holds more than ${MAX_BACKTEST_RUNS} runs, the most a backtest replays: narrow it, or take the last ${MAX_BACKTEST_RUNS}`);
  return rows.map((r) => r.execution_id);
}
