import type { LogWatcher } from './logWatch.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';

/**
 * The log watch's part in erasure: when any process erases a run, every process forgets the key it
 * keeps for it, so none seals or opens the run's data with it again; when the watch restarts (it
 * may have missed an erasure), every kept key is forgotten. Between the two, runDataKeys trusts no
 * kept key while the watch is not current (its `trusted`), and reads the table instead.
 */
export function forgetErasedKeys(keys: Pick<RunDataKeys, 'forget' | 'forgetAll'>): LogWatcher {
  return {
    wants: (change) => change.type === 'RunDataErased',
    changed: (change) => keys.forget((change.data as { executionId: string }).executionId),
    reset: () => keys.forgetAll(),
  };
}
