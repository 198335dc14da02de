import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventToAppend, RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { poolCountingLogReads } from '../support/logReadCounter.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

const event = (n: number): EventToAppend => ({ id: randomUUID(), type: 'Counted', schemaVersion: 1, data: { n }, metadata: { correlationId: randomUUID(), causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt: new Date().toISOString() } });

/** Resolves once `seen` holds `count` events. */
async function until(seen: RecordedEvent[], count: number) {
  for (let i = 0; i < 3000 && seen.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(seen.length).toBe(count);
}

describe("PostgreSQL event log: how often a process's subscribers read it", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let store: ReturnType<typeof createPostgresEventStore>;
  let counted: ReturnType<typeof poolCountingLogReads>;

  beforeAll(async () => {
    database = await createTestDatabase('subscriber_reads');
    counted = poolCountingLogReads(database.url);
    pool = counted.pool;
    store = createPostgresEventStore({ pool, connectionString: database.url, timing: { pollIntervalMs: 50 } });
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await database.drop();
  });

  it('a caught-up subscriber with a read interval begins at most one read per interval, however many commits wake it, and misses none', async () => {
    const seen: RecordedEvent[] = [];
    const readStarts: number[] = [];
    const intervalMs = 150;
    const subscription = store.subscribe({
      from: 'now',
      caughtUpReadIntervalMs: intervalMs,
      handler: async (events) => void seen.push(...events),
      onReadStart: () => void readStarts.push(performance.now()),
      onCaughtUp: () => undefined,
    });
    await subscription.started;
    // Forty commits, one after another, in two waves (the second once the first is seen): each wakes the subscriber.
    for (let n = 0; n < 20; n++) await store.append(`counted-${randomUUID()}`, [event(n)], 'no_stream');
    await until(seen, 20);
    for (let n = 20; n < 40; n++) await store.append(`counted-${randomUUID()}`, [event(n)], 'no_stream');
    await until(seen, 40);
    await subscription.stop();
    expect(seen.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    // After the first read, each began at least an interval after the one before it.
    expect(readStarts.length).toBeGreaterThanOrEqual(3);
    const gaps = readStarts.slice(1).map((at, i) => at - readStarts[i]!);
    expect(Math.min(...gaps.slice(1))).toBeGreaterThanOrEqual(intervalMs - 1);
  });

  it('subscribers that claim no catch-up take what another read, from wherever they stand in it', async () => {
    // No polls: a subscriber reads only when woken, or on from its last batch.
    const quiet = createPostgresEventStore({ pool, connectionString: database.url, timing: { pollIntervalMs: 60_000 } });
    const head = await quiet.headPosition();
    for (let n = 0; n < 30; n++) await quiet.append(`counted-${randomUUID()}`, [event(n)], 'no_stream');
    const first: RecordedEvent[] = [];
    let firstReads = 0;
    const a = quiet.subscribe({ from: head, batchSize: 500, handler: async (events) => void first.push(...events), onReadStart: () => void firstReads++ });
    await until(first, 30);
    // The store's LISTEN connection, started with this first subscriber, wakes every subscriber once
    // when it is up (wakeups.ts): this one's third look (30 events, nothing, then the wake-up's
    // nothing), not a later subscriber's extra read on a machine where the connection came up late.
    for (let i = 0; i < 3000 && firstReads < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(firstReads).toBe(3);
    await a.stop();
    // Three more from the same place, one after another, each reading ten at a time: three batches from what the first read, then one look past its end.
    const before = counted.logReads;
    for (let i = 0; i < 3; i++) {
      const seen: RecordedEvent[] = [];
      const other = quiet.subscribe({ from: head, batchSize: 10, handler: async (events) => void seen.push(...events) });
      await until(seen, 30);
      expect(seen.map((e) => e.id)).toEqual(first.map((e) => e.id));
      await other.stop();
    }
    expect(counted.logReads - before).toBe(3);
    await quiet.close();
  });
});
