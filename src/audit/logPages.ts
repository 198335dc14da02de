import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';
import { readUpToHead } from '../eventstore/readUpToHead.ts';

const PAGE = 1000;
const HORIZON_WAIT_MS = 30_000;

/**
 * Reads the whole log as it stands when called, page by page in log order, up to the head position
 * of that moment. Reads stop below the visibility horizon (an append still in flight holds it
 * back), so an audit waits for the events committed before it began rather than
 * silently leaving them out; it gives up after 30 s of no progress.
 */
export async function readWholeLog(eventStore: EventStore, onPage: (events: RecordedEvent[]) => void | Promise<void> | 'stop' | Promise<'stop' | void>, options: { unreadable?: 'throw' | 'mark' } = {}): Promise<void> {
  const head = await eventStore.headPosition();
  const stuck = (position: number) => new Error(`the log stayed at position ${position} below its head ${head} for ${HORIZON_WAIT_MS / 1000} s: an append transaction stays open and holds the log's visibility horizon back, or an event's position was changed (\`seqflow audit verify-log\` names one moved)`);
  await readUpToHead(eventStore, { from: 0, head, pageSize: PAGE, ...options }, { stuckMs: HORIZON_WAIT_MS, pauseMs: 20, stuck }, async (page) => ((await onPage(page)) === 'stop' ? 'stop' : page.at(-1)!.position));
}
