import type { Reads } from './retryingReads.ts';
import type { Subscription, SubscriptionOptions } from '../eventStore.ts';
import type { JoinedRead } from './joinedReads.ts';
import { cursorAt, hasEventsBeyondHorizon, horizonCursor } from './readEvents.ts';
import type { Wakeups } from './wakeups.ts';
import { createWakeableSleep } from '../../supervision/wakeableSleep.ts';

export interface CatchUpTiming {
  /** Fallback poll when no wake-up arrives. */
  pollIntervalMs: number;
  /** First re-check when committed events wait behind an append still in flight; doubles up to `horizonRetryMaxMs`. */
  horizonRetryMs: number;
  /** An append in flight ahead of committed events ends within milliseconds; never wait longer than this for it. */
  horizonRetryMaxMs: number;
}

/**
 * Reads the log after the cursor in batches, hands each to the handler, and waits for a wake-up
 * (or the poll interval) when it has caught up. The cursor moves only after the handler resolved.
 */
export function catchUpSubscription(
  pool: Reads,
  readAfter: JoinedRead,
  wakeups: Wakeups,
  timing: CatchUpTiming,
  options: SubscriptionOptions,
): Subscription {
  const batchSize = options.batchSize ?? 500;
  let stopped = false;
  // Latched: a wake-up that comes while a batch is handled ends the next pause at once.
  const pause = createWakeableSleep({ latch: true });
  const removeListener = wakeups.add(() => pause.wake());
  const sleep = (ms: number) => (stopped ? Promise.resolve() : pause.sleep(ms));

  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));

  const run = async () => {
    let cursor = options.from === 'now' ? await horizonCursor(pool) : await cursorAt(pool, options.from);
    markStarted();
    let horizonDelay = timing.horizonRetryMs;
    while (!stopped) {
      options.onReadStart?.();
      const batch = await readAfter(cursor, batchSize);
      if (batch.events.length > 0) {
        await options.handler(batch.events);
        cursor = batch.cursor;
        horizonDelay = timing.horizonRetryMs;
        // A short batch read everything below the horizon; a full one may have left more.
        if (batch.events.length < batchSize) options.onCaughtUp?.();
        continue;
      }
      options.onCaughtUp?.();
      if (await hasEventsBeyondHorizon(pool, cursor)) {
        // Committed events sit behind an append still in flight: look again soon, not at the next poll.
        await sleep(horizonDelay);
        horizonDelay = Math.min(horizonDelay * 2, timing.horizonRetryMaxMs);
      } else {
        horizonDelay = timing.horizonRetryMs;
        await sleep(timing.pollIntervalMs);
      }
    }
  };

  const done = run()
    .catch((error: unknown) => {
      stopped = true;
      if (options.onError) options.onError(error);
    })
    .finally(() => {
      removeListener();
      markStarted();
    });

  return {
    done,
    started,
    stop: async () => {
      stopped = true;
      pause.wake();
      await done;
    },
  };
}
