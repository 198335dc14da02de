import type { EventStore, RecordedEvent } from './eventStore.ts';

export interface HorizonWait {
  /** Give up after this long without progress. */
  stuckMs: number;
  /** The pause before looking again. */
  pauseMs: number;
  /** The error to give up with, at the position the read stayed at. */
  stuck: (position: number) => Error;
}

/**
 * Reads the log after `from` up to `head`, page by page in log order, handing each page to `onPage`,
 * which answers the position to read on from (or 'stop'). Reads stop below the visibility horizon
 * (an append still in flight holds it back), so events committed before `head` may not show yet: an
 * empty page below `head` is waited out rather than taken for the end, and after `stuckMs` without
 * progress the read gives up with `wait.stuck`.
 */
export async function readUpToHead(
  eventStore: Pick<EventStore, 'readAll'>,
  range: { from: number; head: number; pageSize: number; unreadable?: 'throw' | 'mark' },
  wait: HorizonWait,
  onPage: (events: RecordedEvent[]) => Promise<number | 'stop'>,
): Promise<void> {
  let position = range.from;
  let stuckSince = Date.now();
  while (position < range.head) {
    const page = await eventStore.readAll(position, range.pageSize, range.unreadable === undefined ? undefined : { unreadable: range.unreadable });
    if (page.length === 0) {
      if (Date.now() - stuckSince > wait.stuckMs) throw wait.stuck(position);
      await new Promise((resolve) => setTimeout(resolve, wait.pauseMs));
      continue;
    }
    stuckSince = Date.now();
    const next = await onPage(page);
    if (next === 'stop') return;
    position = next;
  }
}
