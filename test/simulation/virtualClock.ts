/**
 * The clock of a simulation whose processes run at once. It moves only when every live task waits,
 * either idle (its process found nothing to claim) or stalled (it sleeps until a moment, as a process
 * held up by a pause longer than its leases would). A task is a process's sweep loop, or one of the
 * attempts it runs at once (`all`). Then it jumps to the earliest moment something
 * is due (`nextDue`, asked only when someone is idle) or a sleeper wakes, and wakes them. No real
 * timer is involved, so a schedule stays a function of its seed. When every process is idle and
 * nothing will ever be due, `stuck` is set and everyone is woken to end.
 */
export function virtualClock(start: number, nextDue: (at: number) => Promise<number>) {
  let now = start;
  let live = 0;
  let stuck = false;
  let settling = false;
  let askedWhileSettling = false;
  const idle: (() => void)[] = [];
  const sleepers: { until: number; wake: () => void }[] = [];

  async function settle() {
    if (settling) askedWhileSettling = true;
    if (settling || live === 0 || idle.length + sleepers.length < live) return;
    settling = true;
    try {
      // Everyone waits, so nothing moves while the next due moment is read.
      const next = Math.min(idle.length > 0 ? await nextDue(now) : Infinity, ...sleepers.map((s) => s.until));
      if (next === Infinity) stuck = true;
      else now = Math.max(now, next);
      for (const wake of idle.splice(0)) wake();
      for (const sleeper of [...sleepers]) {
        if (!stuck && sleeper.until > now) continue;
        sleepers.splice(sleepers.indexOf(sleeper), 1);
        sleeper.wake();
      }
    } finally {
      settling = false;
    }
    if (askedWhileSettling) {
      askedWhileSettling = false;
      void settle();
    }
  }

  return {
    now: () => now,
    /** The time of one more recorded moment: a millisecond later than the last. */
    tick: () => (now += 1),
    stuck: () => stuck,
    /** A process starts taking part: the clock waits for it too. */
    join() {
      live++;
    },
    /**
     * Runs `tasks` at once, each a task of its own: the caller's place is handed to them and comes
     * back with the last to end, so the clock never moves between the last one's end and the
     * caller's next step. Every task is waited for, even when one fails.
     */
    async all<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
      if (tasks.length === 0) return [];
      live += tasks.length - 1;
      let running = tasks.length;
      const ended = await Promise.allSettled(
        tasks.map(async (task) => {
          try {
            return await task();
          } finally {
            if (--running > 0) {
              live--;
              void settle();
            }
          }
        }),
      );
      return ended.map((outcome) => {
        if (outcome.status === 'rejected') throw outcome.reason;
        return outcome.value;
      });
    },
    /** A process ended (it died, retired or saw everything end). */
    leave() {
      live--;
      void settle();
    },
    /** Waits until the clock has moved (or the simulation is stuck). */
    idle(): Promise<void> {
      return new Promise((resolve) => {
        idle.push(resolve);
        void settle();
      });
    },
    /** Waits until the clock reaches `until`, while the others go on. */
    sleepUntil(until: number): Promise<void> {
      return new Promise((resolve) => {
        sleepers.push({ until, wake: resolve });
        void settle();
      });
    },
  };
}

export type VirtualClock = ReturnType<typeof virtualClock>;
