/**
 * A bounded queue shared fairly by owners: `take` serves owners round-robin, skipping any that
 * already run `maxRunningPerOwner` items, so one owner's backlog never stands in front of another's
 * work. Each owner's queue and the whole queue are bounded; `add` says why when it is full.
 */
export function createFairQueue<T>(limits: { maxRunningPerOwner: number; maxQueuedPerOwner: number; maxQueued: number }) {
  const waiting = new Map<string, T[]>();
  const running = new Map<string, number>();
  let queued = 0;

  return {
    /** Items waiting, all owners together. */
    size: () => queued,
    /** Queues an item; returns the reason when it cannot (a bound is reached), else undefined. */
    add(owner: string, item: T): string | undefined {
      const own = waiting.get(owner) ?? [];
      if (own.length >= limits.maxQueuedPerOwner) return `${limits.maxQueuedPerOwner} waiting for this organization`;
      if (queued >= limits.maxQueued) return `${limits.maxQueued} waiting in all`;
      own.push(item);
      waiting.set(owner, own);
      queued++;
      return undefined;
    },
    /** The next item of the next owner (in turn) below its running limit, counted as running. */
    take(): T | undefined {
      for (const [owner, own] of waiting) {
        if ((running.get(owner) ?? 0) >= limits.maxRunningPerOwner) continue;
        const item = own.shift()!;
        queued--;
        // Re-inserting moves the owner to the back of the turn order (Maps iterate in insertion order).
        waiting.delete(owner);
        if (own.length > 0) waiting.set(owner, own);
        running.set(owner, (running.get(owner) ?? 0) + 1);
        return item;
      }
      return undefined;
    },
    /** An item of `owner` finished running. */
    done(owner: string) {
      const count = (running.get(owner) ?? 1) - 1;
      if (count > 0) running.set(owner, count);
      else running.delete(owner);
    },
    drain(): T[] {
      const all = [...waiting.values()].flat();
      waiting.clear();
      queued = 0;
      return all;
    },
  };
}
