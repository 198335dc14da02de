import { canonicalJson } from '../canonicalJson.ts';
import type { PairOutcome, PairSide, ResultChange } from './backtestEvents.ts';
import { diffResults } from './resultDiff.ts';

/** A side of a pair with its result (null unless it completed). */
export type ObservedSide = PairSide & { result: unknown };

/**
 * Compares a recorded run with its replay:
 * - both completed: `same` when the results are equal as canonical JSON, else `different` with the changed paths;
 * - the replay did not complete (failed, or stopped at a tool call it could not answer) where the
 *   original completed: `failed`, the regression a promotion must not ship;
 * - both failed: `same` when with the same error code, else `different`;
 * - the original failed and the replay completed: `different` (the result is all added).
 */
export function comparePair(original: ObservedSide, candidate: ObservedSide): { outcome: PairOutcome; changes: ResultChange[]; more: number } {
  const none = { changes: [], more: 0 };
  if (original.status === 'completed' && candidate.status === 'completed') {
    if (canonicalJson(original.result) === canonicalJson(candidate.result)) return { outcome: 'same', ...none };
    return { outcome: 'different', ...diffResults(original.result, candidate.result) };
  }
  if (original.status === 'completed') return { outcome: 'failed', ...none };
  if (candidate.status === 'completed') return { outcome: 'different', ...diffResults(null, candidate.result) };
  return { outcome: original.error?.code === candidate.error?.code ? 'same' : 'different', ...none };
}
