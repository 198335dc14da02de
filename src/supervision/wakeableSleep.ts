import type { EventEmitter } from 'node:events';

/**
 * A loop's pause between rounds that ends early when there is news: `sleep(ms)` resolves after `ms`,
 * or at once when `wake()` is called during it. With `latch`, a wake that comes while the loop is
 * busy is kept and ends the next sleep at once (news that must not be missed); without it, such a
 * wake is dropped (the loop looks for work anyway when it comes round).
 */
export function createWakeableSleep(options: { latch?: boolean } = {}) {
  let wakeSleeper: (() => void) | undefined;
  let latched = false;
  return {
    sleep(ms: number): Promise<void> {
      if (latched) {
        latched = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakeSleeper = undefined;
          resolve();
        }
        wakeSleeper = done;
      });
    },
    wake() {
      if (wakeSleeper) wakeSleeper();
      else if (options.latch) latched = true;
    },
  };
}

export type WakeableSleep = ReturnType<typeof createWakeableSleep>;

/** Resolves at the next `event` on `emitter`, after `ms`, or when `signal` aborts, whichever comes first; leaves no listener behind. */
export function nextEventOrTimeout(emitter: EventEmitter, event: string, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      emitter.off(event, done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    emitter.once(event, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
