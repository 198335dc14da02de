import type { PairOutcome, ResultChange } from '../domain/backtests/backtestEvents.ts';
import type { ObservedSide } from '../domain/backtests/pairComparison.ts';
import type { RecordedAssertionResult } from '../domain/testing/testRunEvents.ts';

/** One pair as a backtest reports it: the outcome, the changed paths, and both sides with their results. */
export interface BacktestPair {
  executionId: string;
  backtestExecutionId: string;
  outcome: PairOutcome;
  same: boolean;
  diff: { changes: ResultChange[]; more: number };
  original: ObservedSide;
  candidate: ObservedSide;
  judge: RecordedAssertionResult | null;
}

export function pairReport(
  compared: { executionId: string; backtestExecutionId: string; outcome: PairOutcome; changes: ResultChange[]; more: number; judge: RecordedAssertionResult | null },
  original: ObservedSide,
  candidate: ObservedSide,
): BacktestPair {
  return {
    executionId: compared.executionId,
    backtestExecutionId: compared.backtestExecutionId,
    outcome: compared.outcome,
    same: compared.outcome === 'same',
    diff: { changes: compared.changes, more: compared.more },
    original,
    candidate,
    judge: compared.judge,
  };
}
