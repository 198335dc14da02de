import { canonicalJson } from '../canonicalJson.ts';
import type { PairOutcome, PairSide, ResultChange } from './backtestEvents.ts';
import { MAX_CHANGES, diffResults, excerpt } from './resultDiff.ts';

/** A side of a pair with its result (null unless it completed) and each block's output by name (a skipped block's: null). */
export type ObservedSide = PairSide & { result: unknown; steps: Readonly<Record<string, unknown>> };

/**
 * Compares a recorded run with its replay:
 * - both completed: `same` when the results are equal as canonical JSON, else `different` with the changed paths;
 * - the replay did not complete (failed, or stopped at a tool call it could not answer) where the
 *   original completed: `failed`, the regression a promotion must not ship;
 * - both failed: `same` when with the same error code, else `different`;
 * - the original failed and the replay completed: `different` (the result is all added).
 */
export function comparePair(original: ObservedSide, candidate: ObservedSide): { outcome: PairOutcome; changes: ResultChange[]; more: number } {
  const outcome = outcomeOf(original, candidate);
  const result = candidate.status === 'completed' ? diffResults(original.status === 'completed' ? original.result : null, candidate.result) : { changes: [], more: 0 };
  // Where the runs went apart, named by block: a changed intermediate output shows even when the result did not change.
  // A block whose output is the result on both sides (the last one, usually) is already shown by the result's paths.
  const isResult = (side: ObservedSide, name: string) => Object.hasOwn(side.steps, name) && canonicalJson(side.steps[name] ?? null) === canonicalJson(side.result ?? null);
  const steps = diffStepOutputs(original.steps, candidate.steps, (name) => isResult(original, name) && isResult(candidate, name));
  const all = [...result.changes, ...steps.changes];
  return { outcome, changes: all.slice(0, MAX_CHANGES), more: result.more + steps.more + Math.max(0, all.length - MAX_CHANGES) };
}

function outcomeOf(original: ObservedSide, candidate: ObservedSide): PairOutcome {
  if (original.status === 'completed' && candidate.status === 'completed') return canonicalJson(original.result) === canonicalJson(candidate.result) ? 'same' : 'different';
  if (original.status === 'completed') return 'failed';
  if (candidate.status === 'completed') return 'different';
  return original.error?.code === candidate.error?.code ? 'same' : 'different';
}

/**
 * The blocks whose outputs differ, each change's path under `steps.<block>.output` (a block one side
 * ran and the other did not: added or removed whole). Blocks in the original's order, then new ones.
 */
export function diffStepOutputs(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>, shownElsewhere: (name: string) => boolean = () => false): { changes: ResultChange[]; more: number } {
  const changes: ResultChange[] = [];
  let more = 0;
  for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])]) {
    if (shownElsewhere(name)) continue;
    const at = `steps.${name}.output`;
    const inBefore = Object.hasOwn(before, name);
    const inAfter = Object.hasOwn(after, name);
    const diff = !inAfter ? { changes: [{ path: '', kind: 'removed' as const, before: excerpt(before[name]) }], more: 0 } : !inBefore ? { changes: [{ path: '', kind: 'added' as const, after: excerpt(after[name]) }], more: 0 } : diffResults(before[name], after[name]);
    changes.push(...diff.changes.map((change) => ({ ...change, path: change.path === '' ? at : change.path.startsWith('[') ? `${at}${change.path}` : `${at}.${change.path}` })));
    more += diff.more;
  }
  return { changes, more };
}
