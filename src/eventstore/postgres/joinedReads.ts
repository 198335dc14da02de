import type { RecordedEvent } from '../eventStore.ts';
import type { LogCursor } from './readEvents.ts';

export type ReadAfter = (cursor: LogCursor, limit: number) => Promise<{ events: RecordedEvent[]; cursors: LogCursor[] }>;

/** A subscriber's read: up to its limit of events after its cursor, and the cursor after the last of them. */
export type JoinedRead = (cursor: LogCursor, limit: number) => Promise<{ events: RecordedEvent[]; cursor: LogCursor }>;

/**
 * One process's subscribers reading the log together: reads after the same cursor asked in one turn
 * of the event loop (a commit wakes every subscriber at once, and those that were waiting stand at
 * the same cursor, the head they had read up to) go as one query, with the largest limit asked; each
 * asker gets the events up to its own limit. A caught-up process used to send one read per subscriber
 * (projections, log watch, delivery creator) per commit, each returning the same rows.
 *
 * Sound because what a read returns is final: it holds only events below the log's visibility
 * horizon, after which nothing is ever committed, so the first n events of a longer read are exactly
 * what a read limited to n returns. Only reads not yet sent are joined: every read a subscriber gets
 * began after it asked, which is what `onCaughtUp` promises (a read that began earlier could miss
 * what committed in between). An error fails every asker of that read, as their own read would have.
 * The events are shared, not copied, and frozen (each event and its data), so a reader that changed
 * what another is handed fails at once instead.
 */
export function joinedReads(read: ReadAfter): JoinedRead {
  const forming = new Map<string, Asker[]>();

  async function send(cursor: LogCursor, askers: Asker[]) {
    try {
      const { events, cursors } = await read(cursor, Math.max(...askers.map((asker) => asker.limit)));
      for (const event of events) Object.freeze(Object.freeze(event).data);
      for (const asker of askers) {
        const n = Math.min(asker.limit, events.length);
        asker.resolve({ events: n === events.length ? events : events.slice(0, n), cursor: n > 0 ? cursors[n - 1]! : cursor });
      }
    } catch (error) {
      for (const asker of askers) asker.reject(error);
    }
  }

  return (cursor, limit) =>
    new Promise((resolve, reject) => {
      const key = `${cursor.transactionId}/${cursor.position}`;
      let askers = forming.get(key);
      if (!askers) {
        const joined: Asker[] = [];
        forming.set(key, joined);
        // After this turn's other wake-ups have asked (they run as promise callbacks before it).
        setImmediate(() => {
          forming.delete(key);
          void send(cursor, joined);
        });
        askers = joined;
      }
      askers.push({ limit, resolve, reject });
    });
}

interface Asker {
  limit: number;
  resolve: (read: { events: RecordedEvent[]; cursor: LogCursor }) => void;
  reject: (error: unknown) => void;
}
