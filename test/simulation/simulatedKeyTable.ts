import { type DataKey, newDataKey } from '../../src/security/runDataCipher.ts';
import type { KeyState, RunDataKeys } from '../../src/security/runDataKeys.ts';
import { processDied } from './faultyConnection.ts';
import type { SeededRandom } from './seededRandom.ts';

/**
 * The run data keys table (`run_data_keys`) in memory, for the simulation: one table for every
 * simulated process, each process's view failing as the seed draws it (a read that times out) and
 * once the process died. The sealing store above it (src/eventstore/sealingEventStore.ts) is the
 * real one, so faults land beneath it. A process keeps no key of its own: every read is the
 * table's, as a process's reads are while its log watch is not current (runDataKeys.ts `trusted`).
 */
export function simulatedKeyTable(random: SeededRandom) {
  const keys = new Map<string, DataKey | 'erased'>();
  const bytes = (size: number) => Buffer.from(Array.from({ length: size }, () => random.int(256)));

  /** Reads that timed out, over every process: faults of the schedule as much as the log's. */
  let faults = 0;

  function forProcess(options: { readFault: number; alive: () => boolean }): RunDataKeys {
    const pending = new Map<string, DataKey>();
    const reach = async () => {
      await Promise.resolve();
      if (!options.alive()) throw processDied();
      if (random.chance(options.readFault)) {
        faults++;
        throw Object.assign(new Error('read timed out'), { code: 'ETIMEDOUT' });
      }
    };
    return {
      forNewRun(executionId) {
        const key = pending.get(executionId) ?? newDataKey(bytes);
        pending.set(executionId, key);
        return { key, wrappedKey: key.toString('base64') };
      },
      appended(executionId) {
        const key = pending.get(executionId);
        pending.delete(executionId);
        if (key && !keys.has(executionId)) keys.set(executionId, key);
      },
      madeHere: () => undefined,
      async forSealing(executionId) {
        await reach();
        const known = keys.get(executionId);
        if (known) return known;
        const made = newDataKey(bytes);
        keys.set(executionId, made);
        return made;
      },
      async forOpening(executionIds) {
        await reach();
        return new Map<string, KeyState>(executionIds.map((id) => [id, keys.get(id) ?? 'none']));
      },
      async erase(executionId) {
        await reach();
        keys.set(executionId, 'erased');
      },
      forgetAll: () => pending.clear(),
      forget: (executionId) => void pending.delete(executionId),
    };
  }

  /** What an erasure does after its RunDataErased: the run's key is gone, for every process at once. */
  return { forProcess, erase: (executionId: string) => void keys.set(executionId, 'erased'), faults: () => faults };
}
