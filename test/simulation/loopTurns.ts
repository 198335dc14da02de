import type { RetryWaits } from '../../src/supervision/retrying.ts';
import type { SeededRandom } from './seededRandom.ts';

/**
 * Retry waits of a few turns of the event loop, not real time, with the seed's jitter: a real
 * timer's end would land among the other tasks' work wherever the machine's speed put it, so a seed
 * would not replay. For waits the virtual clock cannot count (a batched read several callers share),
 * and for the engine's schedules, which have no clock of their own (time is what `now` draws).
 */
export const loopTurns = (random: SeededRandom): RetryWaits => ({
  random: random.next,
  sleep: async () => {
    for (let turn = 0; turn < 8; turn++) await new Promise(setImmediate);
  },
});
