import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { joinedReads } from '../../src/eventstore/postgres/joinedReads.ts';
import type { LogCursor } from '../../src/eventstore/postgres/readEvents.ts';

/** A log of `size` events, read as the PostgreSQL adapter reads it: after a cursor, up to a limit. */
function fakeLog(size: number) {
  const calls: Array<{ after: number; limit: number }> = [];
  const events = Array.from({ length: size }, (_, i) => ({ id: `e${i + 1}`, position: i + 1, data: { n: i + 1 } }) as unknown as RecordedEvent);
  const cursorOf = (position: number): LogCursor => ({ transactionId: String(1000 + position), position });
  const read = async (cursor: LogCursor, limit: number) => {
    calls.push({ after: cursor.position, limit });
    const taken = events.filter((e) => e.position > cursor.position).slice(0, limit);
    return { events: taken, cursors: taken.map((e) => cursorOf(e.position)) };
  };
  return { calls, read, cursorOf };
}

const positions = (read: { events: RecordedEvent[] }) => read.events.map((e) => e.position);

describe("a process's subscribers reading the log together", () => {
  it('send one read for every subscriber that asks after the same cursor in one turn, each handed up to its own limit', async () => {
    const log = fakeLog(10);
    const read = joinedReads(log.read);
    const at = log.cursorOf(2);
    const [projections, watch, creator] = await Promise.all([read(at, 128), read(at, 3), read(at, 500)]);
    expect(log.calls).toEqual([{ after: 2, limit: 500 }]);
    expect(positions(projections)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(projections.cursor).toEqual(log.cursorOf(10));
    // A full batch for the one that asked for 3: its cursor is after its own last event, not the read's.
    expect(positions(watch)).toEqual([3, 4, 5]);
    expect(watch.cursor).toEqual(log.cursorOf(5));
    expect(positions(creator)).toEqual(positions(projections));
  });

  it('read apart after different cursors, and again for a subscriber that asks after the read was sent', async () => {
    const log = fakeLog(6);
    const read = joinedReads(log.read);
    const first = read(log.cursorOf(0), 10);
    const other = read(log.cursorOf(4), 10);
    expect(positions(await first)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(positions(await other)).toEqual([5, 6]);
    // Asked once the first read had answered: a read of its own, begun after it asked.
    expect(positions(await read(log.cursorOf(0), 10))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(log.calls).toEqual([
      { after: 0, limit: 10 },
      { after: 4, limit: 10 },
      { after: 0, limit: 10 },
    ]);
  });

  it('hands nothing and the same cursor back when nothing is after it', async () => {
    const log = fakeLog(3);
    const read = joinedReads(log.read);
    const at = log.cursorOf(3);
    expect(await read(at, 5)).toEqual({ events: [], cursor: at });
  });

  it('fails every subscriber that joined a read that failed, as its own read would have', async () => {
    const read = joinedReads(async () => {
      throw new Error('connection terminated');
    });
    const at = { transactionId: '7', position: 1 };
    const outcomes = await Promise.allSettled([read(at, 1), read(at, 2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  it('hands out events frozen: a subscriber cannot change what another is handed', async () => {
    const log = fakeLog(2);
    const read = joinedReads(log.read);
    const [a, b] = await Promise.all([read(log.cursorOf(0), 5), read(log.cursorOf(0), 5)]);
    expect(() => {
      (a.events[0]!.data as { n: number }).n = 99;
    }).toThrow(TypeError);
    expect(b.events[0]!.data).toEqual({ n: 1 });
  });
});
