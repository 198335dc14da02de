import { LRUCache } from 'lru-cache';

/** A piece of an llm block's reply as its provider streams it (the spec's /step `token` event, never recorded). */
export interface TokenDelta {
  /** The block's id (a step's `blockId`). */
  stepId: string;
  blockName: string;
  /** The loop item, as on the step's events (null outside a loop). */
  iteration: number | null;
  delta: string;
}

/** What a /step reader takes tokens from: in arrival order, at most `maxQueued` waiting (more are dropped: the step's output still has the whole reply). */
export interface TokenReader {
  /** The deltas waiting whose step `ready` says may be shown now, in order; the others stay. */
  take(ready: (delta: TokenDelta) => boolean): TokenDelta[];
  /** Called when a delta arrives (the reader's wake-up). */
  onArrival(listener: () => void): void;
  close(): void;
}

/**
 * The replies being written by runs in this process, for /step readers here. A block streams its
 * model's reply only while a reader listens to its run (`listening`), so a run nobody follows
 * pays nothing; what it streams is never recorded (the step's completion records the whole reply
 * once). Bounded: readers of at most `maxRuns` runs, `maxQueued` deltas each.
 */
export function createTokenFeed({ maxRuns = 10_000, maxQueued = 10_000 }: { maxRuns?: number; maxQueued?: number } = {}) {
  const readers = new LRUCache<string, Set<ReturnType<typeof reader>>>({ max: maxRuns });

  function reader(executionId: string) {
    let queue: TokenDelta[] = [];
    let arrival: (() => void) | undefined;
    const self = {
      push(delta: TokenDelta) {
        if (queue.length < maxQueued) queue.push(delta);
        arrival?.();
      },
      take(ready: (delta: TokenDelta) => boolean) {
        const now = queue.filter(ready);
        if (now.length > 0) queue = queue.filter((delta) => !ready(delta));
        return now;
      },
      onArrival(listener: () => void) {
        arrival = listener;
      },
      close() {
        const set = readers.get(executionId);
        set?.delete(self);
        if (set?.size === 0) readers.delete(executionId);
        queue = [];
      },
    };
    return self;
  }

  return {
    listening: (executionId: string) => (readers.get(executionId)?.size ?? 0) > 0,
    publish(executionId: string, delta: TokenDelta) {
      for (const one of readers.get(executionId) ?? []) one.push(delta);
    },
    /** A reader of the run's deltas from now on; close it when done. */
    open(executionId: string): TokenReader {
      const one = reader(executionId);
      const set = readers.get(executionId) ?? new Set();
      set.add(one);
      readers.set(executionId, set);
      return one;
    },
  };
}

export type TokenFeed = ReturnType<typeof createTokenFeed>;
