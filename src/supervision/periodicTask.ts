import type { SupervisedTask } from './supervisor.ts';
import { createWakeableSleep } from './wakeableSleep.ts';

/**
 * A supervised task that does `round` every `intervalMs` (the first at once) until stopped. A round
 * that throws fails the task: the supervisor restarts it with backoff and shows it in /health.
 */
export function periodicTask(intervalMs: number, round: () => Promise<void>): SupervisedTask {
  const pause = createWakeableSleep();
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      await round();
      if (!stopped) await pause.sleep(intervalMs);
    }
  })();
  return {
    done,
    async stop() {
      stopped = true;
      pause.wake();
      await done.catch(() => undefined);
    },
  };
}
