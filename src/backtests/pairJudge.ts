import type { BacktestJudge } from '../domain/backtests/backtestEvents.ts';
import type { EngineDependencies } from '../execution/engineDependencies.ts';
import { judge } from '../testing/llmJudge.ts';

/**
 * A backtest's judge on a pair that differs: does the difference matter? The rubric says what a
 * good answer does; the judge scores the candidate against the original under it (1: at least as
 * good, the change does not matter). Recorded like a test's llm_judge assertion.
 */
export function judgePair(deps: EngineDependencies, organizationId: string, rubric: BacktestJudge, pair: { original: unknown; candidate: unknown }) {
  const framed = [
    'Two outputs of the same pipeline for the same input: "original" (recorded in production) and "candidate" (a new version).',
    'Score 1 when the candidate is at least as good as the original under the rubric (the difference does not matter), 0 when it is worse.',
    '',
    rubric.rubric,
  ].join('\n');
  return judge(deps, organizationId, { rubric: framed, model: rubric.model, threshold: rubric.threshold }, pair);
}
