/**
 * Runs a sweep one at a time: a request while one runs is answered by another right after it (never
 * two at once, never a request lost). `sweep` answers true when it may have left work behind (a
 * full page), so it runs again while `mayGoOn` allows.
 */
export function createCoalescedSweep(sweep: () => Promise<boolean>, mayGoOn: () => boolean) {
  let running: Promise<void> | undefined;
  let again = false;
  return {
    /** Sweeps now, or right after the sweep in progress; resolves when that one is done. */
    request(): Promise<void> {
      if (!mayGoOn()) return Promise.resolve();
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          if (await sweep()) again = true;
        } while (again && mayGoOn());
      })().finally(() => {
        running = undefined;
      });
      return running;
    },
    /** The sweep in progress, if any. */
    settled: () => running ?? Promise.resolve(),
  };
}
