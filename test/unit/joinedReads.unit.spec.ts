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

describe("a process's subscribers reading the log together (each needing a read begun after it asked)", () => {
  it('send one read for every subscriber that asks after the same cursor in one turn, each handed up to its own limit', async () => {
    const log = fakeLog(10);
    const read = joinedReads(log.read);
    const at = log.cursorOf(2);
    const [projections, watch, creator] = await Promise.all([read(at, 128, true), read(at, 3, true), read(at, 500, true)]);
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
    const first = read(log.cursorOf(0), 10, true);
    const other = read(log.cursorOf(4), 10, true);
    expect(positions(await first)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(positions(await other)).toEqual([5, 6]);
    // Asked once the first read had answered: a read of its own, begun after it asked.
    expect(positions(await read(log.cursorOf(0), 10, true))).toEqual([1, 2, 3, 4, 5, 6]);
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
    expect(await read(at, 5, true)).toEqual({ events: [], cursor: at, fresh: true });
  });

  it('fails every subscriber that joined a read that failed, as its own read would have', async () => {
    const read = joinedReads(async () => {
      throw new Error('connection terminated');
    });
    const at = { transactionId: '7', position: 1 };
    const outcomes = await Promise.allSettled([read(at, 1, true), read(at, 2, true)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  it('hands out events frozen: a subscriber cannot change what another is handed', async () => {
    const log = fakeLog(2);
    const read = joinedReads(log.read);
    const [a, b] = await Promise.all([read(log.cursorOf(0), 5, true), read(log.cursorOf(0), 5, true)]);
    expect(() => {
      (a.events[0]!.data as { n: number }).n = 99;
    }).toThrow(TypeError);
    expect(b.events[0]!.data).toEqual({ n: 1 });
  });
});

describe('subscribers that need no fresh read take what another read', () => {
  it('hands a later subscriber what an answered read holds after its cursor, from any event in it, with no read of its own', async () => {
    const log = fakeLog(8);
    const read = joinedReads(log.read);
    expect(positions(await read(log.cursorOf(2), 500, true))).toEqual([3, 4, 5, 6, 7, 8]);
    const behind = await read(log.cursorOf(2), 4, false);
    expect(behind).toEqual({ events: [expect.objectContaining({ position: 3 }), expect.objectContaining({ position: 4 }), expect.objectContaining({ position: 5 }), expect.objectContaining({ position: 6 })], cursor: log.cursorOf(6), fresh: false });
    expect(positions(await read(log.cursorOf(6), 500, false))).toEqual([7, 8]);
    expect(log.calls).toEqual([{ after: 2, limit: 500 }]);
    // At the read's end nothing is kept after it: a read of the log, as a fresh asker always gets.
    expect(await read(log.cursorOf(8), 500, false)).toEqual({ events: [], cursor: log.cursorOf(8), fresh: true });
    expect(positions(await read(log.cursorOf(2), 500, true))).toEqual([3, 4, 5, 6, 7, 8]);
    expect(log.calls).toEqual([
      { after: 2, limit: 500 },
      { after: 8, limit: 500 },
      { after: 2, limit: 500 },
    ]);
  });

  it('joins a read already in flight after its cursor instead of sending another; a fresh asker sends its own', async () => {
    const log = fakeLog(5);
    const read = joinedReads(log.read);
    const first = read(log.cursorOf(0), 500, true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.calls).toHaveLength(1);
    const [late, fresh] = [read(log.cursorOf(0), 2, false), read(log.cursorOf(0), 500, true)];
    expect(positions(await late)).toEqual([1, 2]);
    expect((await late).fresh).toBe(false);
    expect(positions(await first)).toEqual([1, 2, 3, 4, 5]);
    expect(positions(await fresh)).toEqual([1, 2, 3, 4, 5]);
    expect(log.calls).toEqual([
      { after: 0, limit: 500 },
      { after: 0, limit: 500 },
    ]);
  });

  it('keeps at most its bound of events: a subscriber behind the oldest kept read reads the log', async () => {
    const log = fakeLog(30);
    const read = joinedReads(log.read, { keepEvents: 10 });
    for (const from of [0, 10, 20]) await read(log.cursorOf(from), 10, true);
    expect(positions(await read(log.cursorOf(25), 10, false))).toEqual([26, 27, 28, 29, 30]);
    expect(positions(await read(log.cursorOf(5), 10, false))).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(log.calls.map((c) => c.after)).toEqual([0, 10, 20, 5]);
  });

  it('takes a cursor at the same position under another transaction id (a horizon, not an event) for another cursor', async () => {
    const log = fakeLog(4);
    const read = joinedReads(log.read);
    await read(log.cursorOf(2), 10, true);
    expect(await read({ transactionId: '5', position: 2 }, 10, false)).toMatchObject({ fresh: true });
    expect(log.calls).toEqual([
      { after: 2, limit: 10 },
      { after: 2, limit: 10 },
    ]);
  });

  it('keeps nothing of a read that failed', async () => {
    let fail = true;
    const log = fakeLog(3);
    const read = joinedReads(async (cursor, limit) => {
      if (fail) throw new Error('connection terminated');
      return log.read(cursor, limit);
    });
    await expect(read(log.cursorOf(0), 5, true)).rejects.toThrow('connection terminated');
    fail = false;
    expect(await read(log.cursorOf(0), 5, false)).toMatchObject({ fresh: true });
    expect(log.calls).toHaveLength(1);
  });
});
