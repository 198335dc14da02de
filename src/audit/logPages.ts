import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';

const PAGE = 1000;
const HORIZON_WAIT_MS = 30_000;

/**
 * Reads the whole log as it stands when called, page by page in log order, up to the head position
 * of that moment. Reads stop below the visibility horizon (an open transaction anywhere on the
 * server holds it back), so an audit waits for the events committed before it began rather than
 * silently leaving them out; it gives up after 30 s of no progress.
 */
export async function readWholeLog(eventStore: EventStore, onPage: (events: RecordedEvent[]) => void | Promise<void> | 'stop' | Promise<'stop' | void>): Promise<void> {
  const head = await eventStore.headPosition();
  let position = 0;
  let stuckSince = Date.now();
  while (position < head) {
    const page = await eventStore.readAll(position, PAGE);
    if (page.length === 0) {
      if (Date.now() - stuckSince > HORIZON_WAIT_MS) throw new Error(`the log stayed at position ${position} below its head ${head} for ${HORIZON_WAIT_MS / 1000} s: a long transaction holds the visibility horizon back`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    stuckSince = Date.now();
    if ((await onPage(page)) === 'stop') return;
    position = page.at(-1)!.position;
  }
}
