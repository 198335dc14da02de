import type { RecordedEvent } from '../eventStore.ts';
import { keptReads } from './keptReads.ts';
import type { LogCursor } from './readEvents.ts';

export type ReadAfter = (cursor: LogCursor, limit: number) => Promise<{ events: RecordedEvent[]; cursors: LogCursor[] }>;

/**
 * A subscriber's read: up to its limit of events after its cursor, and the cursor after the last of
 * them. `fresh`: the subscriber needs a read that began after it asked (it claims to be caught up
 * after a short one); the answer says whether it got one.
 */
export type JoinedRead = (cursor: LogCursor, limit: number, fresh: boolean) => Promise<{ events: RecordedEvent[]; cursor: LogCursor; fresh: boolean }>;

/**
 * One process's subscribers reading the log together. Reads after the same cursor asked in one turn
 * of the event loop (a commit wakes every subscriber at once, and those that were waiting stand at
 * the same cursor, the head they had read up to) go as one query, with the largest limit asked; each
 * asker gets the events up to its own limit. A subscriber that does not need a fresh read is also
 * handed what a read already answered or in flight holds after its cursor (keptReads.ts): under load
 * the subscribers seldom ask in the same turn, and each sent a read of its own for the same rows.
 *
 * Sound because what a read returns is final: it holds only events below the log's visibility
 * horizon, after which nothing is ever committed, so the first n events of a longer read are exactly
 * what a read limited to n returns. A fresh asker joins only reads not yet sent, so its read began
 * after it asked, which is what `onCaughtUp` promises (a read that began earlier could miss what
 * committed in between). An error fails every asker of that read, as their own read would have.
 * The events are shared, not copied, and frozen (each event and its data), so a reader that changed
 * what another is handed fails at once instead.
 */
export function joinedReads(read: ReadAfter, options: { keepEvents?: number } = {}): JoinedRead {
  const forming = new Map<string, Asker[]>();
  const inFlight = new Map<string, Asker[]>();
  const kept = keptReads(options.keepEvents ?? 1000);

  async function send(cursor: LogCursor, key: string, askers: Asker[]) {
    inFlight.set(key, askers);
    try {
      const { events, cursors } = await read(cursor, Math.max(...askers.map((asker) => asker.limit)));
      for (const event of events) Object.freeze(Object.freeze(event).data);
      kept.keep(cursor, events, cursors);
      for (const asker of askers) {
        const n = Math.min(asker.limit, events.length);
        asker.resolve({ events: n === events.length ? events : events.slice(0, n), cursor: n > 0 ? cursors[n - 1]! : cursor, fresh: asker.fresh });
      }
    } catch (error) {
      for (const asker of askers) asker.reject(error);
    } finally {
      if (inFlight.get(key) === askers) inFlight.delete(key);
    }
  }

  return (cursor, limit, fresh) => {
    if (!fresh) {
      const known = kept.after(cursor, limit);
      if (known) return Promise.resolve({ ...known, fresh: false });
    }
    return new Promise((resolve, reject) => {
      const key = `${cursor.transactionId}/${cursor.position}`;
      const sent = fresh ? undefined : inFlight.get(key);
      if (sent) return void sent.push({ limit, fresh: false, resolve, reject });
      let askers = forming.get(key);
      if (!askers) {
        const joined: Asker[] = [];
        forming.set(key, joined);
        // After this turn's other wake-ups have asked (they run as promise callbacks before it).
        setImmediate(() => {
          forming.delete(key);
          void send(cursor, key, joined);
        });
        askers = joined;
      }
      askers.push({ limit, fresh: true, resolve, reject });
    });
  };
}

interface Asker {
  limit: number;
  /** Asked before the read was sent. */
  fresh: boolean;
  resolve: (read: { events: RecordedEvent[]; cursor: LogCursor; fresh: boolean }) => void;
  reject: (error: unknown) => void;
}
