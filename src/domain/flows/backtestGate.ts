import { ApiError } from '../errors/apiError.ts';

/** What the latest finished backtest of a version says, for the promotion gate (the service reads it; the decider rules). */
export type BacktestGateStatus = { status: 'not_run' } | { status: 'ran'; backtestId: string; total: number; changed: number };

/** Why the backtest rule holds a version back: no backtest of it, or too many changed answers. */
export interface BacktestGateProblem {
  status: 'not_run' | 'changed';
  backtestId: string | null;
  changedPercent: number | null;
}

const percent = (changed: number, total: number) => (total === 0 ? 0 : Math.round((changed / total) * 10_000) / 100);

/**
 * The backtest rule of the promotion gate: with `maxChangedPercent` set, a version becomes
 * production only after a finished backtest of it changed (a different answer, or a failure where
 * the recorded run completed; a different answer its judge scored as not mattering does not count)
 * at most that share of the runs it replayed. Null: no rule. (The flow decider leaves a first
 * production version out: there is no production run to replay on it.)
 */
export function backtestGateProblem(maxChangedPercent: number | null, status: BacktestGateStatus | undefined): BacktestGateProblem | null {
  if (maxChangedPercent === null) return null;
  if (!status || status.status === 'not_run') return { status: 'not_run', backtestId: null, changedPercent: null };
  const changedPercent = percent(status.changed, status.total);
  return changedPercent > maxChangedPercent ? { status: 'changed', backtestId: status.backtestId, changedPercent } : null;
}

export function backtestGateError(problem: BacktestGateProblem, maxChangedPercent: number, versionNumber: number): ApiError {
  return problem.status === 'not_run'
    ? new ApiError('BACKTEST_NOT_RUN', `The promotion gate needs a backtest of version ${versionNumber} (at most ${maxChangedPercent}% changed answers): run one (seqflow backtest --flow ... --version ${versionNumber} --last 100), or force the promotion`)
    : new ApiError('BACKTEST_CHANGED', `The promotion gate allows at most ${maxChangedPercent}% changed answers; backtest ${problem.backtestId} of version ${versionNumber} changed ${problem.changedPercent}%`, { backtestId: problem.backtestId, changedPercent: problem.changedPercent });
}
