import type { RecordedEvent } from '../eventStore.ts';
import type { LogCursor } from './readEvents.ts';

/**
 * What this process read of the log lately, found by the cursor each event follows: a subscriber
 * that stands at one of those cursors takes what follows from here instead of sending a read of its
 * own. Under load the subscribers of a process (projections, log watch, live events, delivery
 * creator) finish their batches at different moments, so they seldom ask in the same turn and each
 * read the same rows: some two reads per three-block run.
 *
 * Sound for the same reason joined reads are: a read holds only events below the log's visibility
 * horizon, after which nothing is ever committed, so what follows a cursor in a read is exactly what
 * the log holds after it, up to that read's end. Bounded by events kept: the oldest reads go first,
 * and a subscriber further behind reads the log itself.
 */
export interface KeptReads {
  /** A read's answer: its events after `start`, each with the cursor after it. */
  keep(start: LogCursor, events: readonly RecordedEvent[], cursors: readonly LogCursor[]): void;
  /** Up to `limit` kept events after `cursor`, with the cursor after the last; undefined when none is kept. */
  after(cursor: LogCursor, limit: number): { events: RecordedEvent[]; cursor: LogCursor } | undefined;
}

interface Kept {
  start: LogCursor;
  events: readonly RecordedEvent[];
  cursors: readonly LogCursor[];
}

interface Entry {
  read: Kept;
  /** Where in the read what follows `cursor` begins. */
  from: number;
  cursor: LogCursor;
}

export function keptReads(maxEvents: number): KeptReads {
  // By the cursor's position (a number key: no string made per event); its transaction id is checked on the way out.
  const byPosition = new Map<number, Entry>();
  const order: Kept[] = [];
  let count = 0;

  const index = (cursor: LogCursor, read: Kept, from: number) => byPosition.set(cursor.position, { read, from, cursor });
  const forget = (read: Kept) => {
    count -= read.events.length;
    for (const cursor of [read.start, ...read.cursors]) {
      // A later read may have taken the position over (it began there): that entry stays.
      if (byPosition.get(cursor.position)?.read === read) byPosition.delete(cursor.position);
    }
  };

  return {
    keep(start, events, cursors) {
      if (events.length === 0 || events.length > maxEvents) return;
      const read: Kept = { start, events, cursors };
      index(start, read, 0);
      // The last event's cursor has nothing after it in this read.
      for (let i = 0; i < cursors.length - 1; i++) index(cursors[i]!, read, i + 1);
      order.push(read);
      count += events.length;
      while (count > maxEvents) forget(order.shift()!);
    },

    after(cursor, limit) {
      const found = byPosition.get(cursor.position);
      // The same position under another transaction id is another cursor (a horizon's, not an event's).
      if (!found || found.cursor.transactionId !== cursor.transactionId) return undefined;
      const end = Math.min(found.from + limit, found.read.events.length);
      return { events: found.read.events.slice(found.from, end), cursor: found.read.cursors[end - 1]! };
    },
  };
}
