import { withinGrace } from '../supervision/withinGrace.ts';

/**
 * A worker's bounded concurrency: pieces of work running, and offers (work accepted in this
 * process) still being claimed, each hold one of `concurrency` slots. `freed` is told when a
 * piece ends, so a waiting claim loop looks for more at once. A piece that fails is handed to
 * `failed` (it never becomes an unhandled rejection, which would end the process).
 */
export function createWorkSlots(concurrency: number, freed: () => void, failed: (error: unknown) => void) {
  const running = new Set<Promise<void>>();
  let offering = 0;
  return {
    /** Slots neither running work nor claiming an offer. */
    free: () => concurrency - running.size - offering,
    inFlight: () => running.size,
    /** Runs `work` in a slot without waiting for it. */
    run(work: () => Promise<void>) {
      const task = work()
        .catch(failed)
        .finally(() => {
          running.delete(task);
          freed();
        });
      running.add(task);
    },
    /** Holds `held` slots (one unless given) while work is claimed for them. */
    async claiming<T>(claim: () => Promise<T>, held = 1): Promise<T> {
      offering += held;
      try {
        return await claim();
      } finally {
        offering -= held;
      }
    },
    /** Waits for the work in the slots, at most `graceMs`: true when it all ended. */
    drained: (graceMs: number) => withinGrace(Promise.allSettled([...running]), graceMs),
  };
}

export type WorkSlots = ReturnType<typeof createWorkSlots>;
