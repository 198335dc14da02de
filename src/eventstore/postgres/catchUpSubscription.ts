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
  // Only a subscriber that claims to be caught up needs reads begun after it asked; the others may take what another subscriber read.
  const needsFreshReads = options.onCaughtUp !== undefined;
  let stopped = false;
  // Latched: a wake-up that comes while a batch is handled ends the next pause at once.
  const pause = createWakeableSleep({ latch: true });
  const removeListener = wakeups.add(() => pause.wake());
  const sleep = (ms: number) => (stopped ? Promise.resolve() : pause.sleep(ms));
  // Woken by stop only: a caught-up subscriber that reads at most once per interval waits out the rest of it, whatever commits meanwhile.
  const spacing = createWakeableSleep();
  const readInterval = options.caughtUpReadIntervalMs ?? 0;
  let lastReadAt = Number.NEGATIVE_INFINITY;
  let caughtUp = false;

  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));

  const run = async () => {
    let cursor = options.from === 'now' ? await horizonCursor(pool) : await cursorAt(pool, options.from);
    markStarted();
    let horizonDelay = timing.horizonRetryMs;
    while (!stopped) {
      while (caughtUp && !stopped) {
        const left = lastReadAt + readInterval - performance.now();
        if (left <= 0) break;
        // Again if the timer ended a little early by this clock (it counts from the loop's cached time).
        await spacing.sleep(left);
      }
      if (stopped) break;
      options.onReadStart?.();
      lastReadAt = performance.now();
      const batch = await readAfter(cursor, batchSize, needsFreshReads);
      // A short batch read everything below the horizon; a full one may have left more.
      caughtUp = batch.events.length < batchSize;
      if (batch.events.length > 0) {
        await options.handler(batch.events);
        cursor = batch.cursor;
        horizonDelay = timing.horizonRetryMs;
        // Only a read begun after onReadStart proves the subscriber current.
        if (caughtUp && batch.fresh) options.onCaughtUp?.();
        continue;
      }
      if (batch.fresh) options.onCaughtUp?.();
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
      spacing.wake();
      await done;
    },
  };
}
