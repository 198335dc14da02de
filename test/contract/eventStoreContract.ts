import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyChain, verifyNext } from '../../src/domain/audit/chainVerification.ts';
import { type EventStore, type EventToAppend, type RecordedEvent, WrongExpectedRevision } from '../../src/eventstore/eventStore.ts';

export interface ContractHarness {
  store: EventStore;
  teardown(): Promise<void>;
}

const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  data,
  metadata: { correlationId: randomUUID(), causationId: null, principal: { kind: 'system', id: 'contract-test' }, occurredAt: new Date().toISOString() },
});

/** A stream name no other test (or earlier run against the same server) uses. */
const streamName = (label: string) => `contract_${label}-${randomUUID()}`;

/** Collects what a subscription delivers until `until` holds (or the timeout passes). */
async function collect(store: EventStore, from: number, until: (seen: RecordedEvent[]) => boolean, timeoutMs = 30_000) {
  const seen: RecordedEvent[] = [];
  let failure: unknown;
  let resolveDone!: () => void;
  const finished = new Promise<void>((resolve) => (resolveDone = resolve));
  const subscription = store.subscribe({
    from,
    handler: async (events) => {
      seen.push(...events);
      if (until(seen)) resolveDone();
    },
    onError: (error) => {
      failure = error;
      resolveDone();
    },
  });
  const timer = setTimeout(resolveDone, timeoutMs);
  await finished;
  clearTimeout(timer);
  await subscription.stop();
  if (failure) throw failure;
  return seen;
}

export function eventStoreContract(name: string, setup: (() => Promise<ContractHarness>) | undefined) {
  describe.skipIf(!setup)(`event log contract: ${name}`, () => {
    let harness: ContractHarness;
    let store: EventStore;

    beforeAll(async () => {
      harness = await setup!();
      store = harness.store;
    });
    afterAll(async () => harness?.teardown());

    it('appends events to a stream and reads them back in order with their revisions, data and metadata', async () => {
      const stream = streamName('roundtrip');
      const first = [event('Opened', { n: 1 }), event('Renamed', { n: 2, nested: { a: [1, 2] } })];
      const appended = await store.append(stream, first, 'no_stream');
      expect(appended.nextExpectedRevision).toBe(1);

      const second = [event('Closed', { n: 3 })];
      const next = await store.append(stream, second, 1);
      expect(next.nextExpectedRevision).toBe(2);
      expect(next.position).toBeGreaterThan(appended.position);

      const read = await store.readStream(stream);
      expect(read.map((e) => [e.id, e.type, e.revision, e.data])).toEqual(
        [...first, ...second].map((e, i) => [e.id, e.type, i, e.data]),
      );
      expect(read[0]!.metadata).toEqual(first[0]!.metadata);
      expect(read[0]!.streamId).toBe(stream);
      expect(read[2]!.position).toBe(next.position);
      expect(read.map((e) => e.position)).toEqual([...read.map((e) => e.position)].sort((a, b) => a - b));
    });

    it('reads back appends made with deferred durability like any other, in order with durable ones', async () => {
      const stream = streamName('deferred');
      await store.append(stream, [event('Noted1')], 'no_stream', { durability: 'deferred' });
      await store.append(stream, [event('Noted2')], 0, { durability: 'deferred' });
      const last = await store.append(stream, [event('Recorded')], 1);
      expect((await store.readStream(stream)).map((e) => [e.type, e.revision])).toEqual([['Noted1', 0], ['Noted2', 1], ['Recorded', 2]]);
      await expect(store.append(stream, [event('Late')], 1, { durability: 'deferred' })).rejects.toBeInstanceOf(WrongExpectedRevision);
      expect(last.nextExpectedRevision).toBe(2);
    });

    it('reads a stream from a revision, at most a count, and tells whether it exists', async () => {
      const stream = streamName('window');
      const appended = [event('E0'), event('E1'), event('E2'), event('E3'), event('E4')];
      await store.append(stream, appended, 'no_stream');
      expect((await store.readStream(stream, { fromRevision: 2 })).map((e) => [e.type, e.revision])).toEqual([['E2', 2], ['E3', 3], ['E4', 4]]);
      expect((await store.readStream(stream, { maxCount: 1 })).map((e) => e.type)).toEqual(['E0']);
      expect((await store.readStream(stream, { fromRevision: 1, maxCount: 2 })).map((e) => e.type)).toEqual(['E1', 'E2']);
      expect(await store.readStream(stream, { fromRevision: 5 })).toEqual([]);
      expect(await store.streamExists(stream)).toBe(true);
    });

    it('reads an unknown stream as empty', async () => {
      expect(await store.readStream(streamName('missing'))).toEqual([]);
      expect(await store.streamExists(streamName('missing'))).toBe(false);
    });

    it('refuses an append whose expected revision does not match, with the actual revision', async () => {
      const stream = streamName('conflict');
      await store.append(stream, [event('A'), event('B')], 'no_stream');

      await expect(store.append(stream, [event('C')], 'no_stream')).rejects.toMatchObject({ name: 'WrongExpectedRevision', actual: 1 });
      await expect(store.append(stream, [event('C')], 0)).rejects.toBeInstanceOf(WrongExpectedRevision);
      await expect(store.append(stream, [event('C')], 5)).rejects.toBeInstanceOf(WrongExpectedRevision);
      await expect(store.append(streamName('absent'), [event('C')], 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedRevision);
      await expect(store.append(streamName('absent'), [event('C')], 0)).rejects.toMatchObject({ actual: -1 });

      expect((await store.append(stream, [event('C')], 'any')).nextExpectedRevision).toBe(2);
      expect((await store.append(stream, [event('D')], 'stream_exists')).nextExpectedRevision).toBe(3);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
    });

    it('does not duplicate an append retried with the same event ids (a lost reply)', async () => {
      const stream = streamName('retry');
      const events = [event('A'), event('B')];
      const first = await store.append(stream, events, 'no_stream');
      const retried = await store.append(stream, events, 'no_stream');
      expect(retried).toEqual(first);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('reads $all in position order, after a given position', async () => {
      const before = await store.headPosition();
      const a = streamName('all-a');
      const b = streamName('all-b');
      await store.append(a, [event('A1')], 'no_stream');
      await store.append(b, [event('B1'), event('B2')], 'no_stream');
      await store.append(a, [event('A2')], 0);

      // $all is read below the visibility horizon, which any open transaction on the server holds back
      // (in PostgreSQL, in any database): committed events appear there shortly, never out of order.
      let mine: RecordedEvent[] = [];
      for (let i = 0; i < 200 && mine.length < 4; i++) {
        mine = (await store.readAll(before, 10_000)).filter((e) => e.streamId === a || e.streamId === b);
        if (mine.length < 4) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(mine.map((e) => e.type)).toEqual(['A1', 'B1', 'B2', 'A2']);
      const positions = mine.map((e) => e.position);
      expect(positions.every((p, i) => i === 0 || p > positions[i - 1]!)).toBe(true);
      expect(positions[0]).toBeGreaterThan(before);

      const afterSecond = (await store.readAll(mine[1]!.position, 10_000)).filter((e) => e.streamId === a || e.streamId === b);
      expect(afterSecond.map((e) => e.type)).toEqual(['B2', 'A2']);
      expect(await store.headPosition()).toBeGreaterThanOrEqual(mine[3]!.position);
    });

    it('resumes a subscription from its checkpoint without repeating or missing events', async () => {
      const stream = streamName('resume');
      const from = await store.headPosition();
      await store.append(stream, [event('E1'), event('E2'), event('E3')], 'no_stream');
      const mine = (events: RecordedEvent[]) => events.filter((e) => e.streamId === stream);

      const firstRun = await collect(store, from, (seen) => mine(seen).length >= 3);
      expect(mine(firstRun).map((e) => e.type)).toEqual(['E1', 'E2', 'E3']);
      const checkpoint = mine(firstRun).at(-1)!.position;

      await store.append(stream, [event('E4'), event('E5')], 2);
      const secondRun = await collect(store, checkpoint, (seen) => mine(seen).length >= 2);
      expect(mine(secondRun).map((e) => e.type)).toEqual(['E4', 'E5']);
    });

    it('starts a subscription from `now`: what commits after it started comes, what was there before does not', async () => {
      const stream = streamName('now');
      await store.append(stream, [event('Before')], 'no_stream');
      const seen: RecordedEvent[] = [];
      let arrived!: () => void;
      const after = new Promise<void>((resolve) => (arrived = resolve));
      const subscription = store.subscribe({
        from: 'now',
        handler: async (events) => {
          seen.push(...events.filter((e) => e.streamId === stream));
          if (seen.some((e) => e.type === 'After')) arrived();
        },
      });
      await subscription.started;
      await store.append(stream, [event('After')], 0);
      await Promise.race([after, subscription.done]);
      await subscription.stop();
      expect(seen.map((e) => e.type)).toEqual(['After']);
    });

    it('delivers every event exactly once and in position order to a live subscriber while 8 writers append concurrently', async () => {
      const writers = 8;
      const perWriter = 400; // 3,200 events in single appends and batches
      const prefix = `contract_concurrent-${randomUUID()}`;
      const from = await store.headPosition();
      const expectedIds = new Set<string>();

      const subscriber = collect(store, from, (seen) => seen.filter((e) => e.streamId.startsWith(prefix)).length >= writers * perWriter, 120_000);

      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          let written = 0;
          let revision = -1;
          let stream = 0;
          while (written < perWriter) {
            // Alternate single-event and 10-event appends across several streams per writer.
            const size = written % 20 === 0 ? 10 : 1;
            const batch = Array.from({ length: Math.min(size, perWriter - written) }, () => event('Tick', { w }));
            for (const e of batch) expectedIds.add(e.id);
            const result = await store.append(`${prefix}-${w}-${stream}`, batch, revision === -1 ? 'no_stream' : revision);
            revision = result.nextExpectedRevision;
            written += batch.length;
            if (revision >= 49) {
              stream++;
              revision = -1;
            }
          }
        }),
      );

      const seen = (await subscriber).filter((e) => e.streamId.startsWith(prefix));
      expect(seen).toHaveLength(writers * perWriter);
      expect(new Set(seen.map((e) => e.id))).toEqual(expectedIds);
      const positions = seen.map((e) => e.position);
      const outOfOrder = positions.filter((p, i) => i > 0 && p <= positions[i - 1]!);
      expect(outOfOrder).toEqual([]);
    });

    it('lets exactly one of several writers racing on one stream win each revision', async () => {
      const stream = streamName('race');
      await store.append(stream, [event('Start')], 'no_stream');
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => store.append(stream, [event('Racer')], 0)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof WrongExpectedRevision)).toHaveLength(7);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('chains every event of a stream to the one before it, whatever the expected revision, and records the head', async () => {
      const stream = streamName('chain');
      await store.append(stream, [event('A', { n: 1 }), event('B', { nested: { z: 1, a: [1, 2] } })], 'no_stream');
      await store.append(stream, [event('C')], 1);
      await store.append(stream, [event('D')], 'any');
      await store.append(stream, [event('E'), event('F')], 'stream_exists');
      const events = await store.readStream(stream);
      let chain = emptyChain();
      for (const recorded of events) {
        const step = verifyNext(chain, { ...recorded, streamId: stream });
        if ('problem' in step) throw new Error(`${step.problem.kind} at revision ${step.problem.revision}: ${step.problem.detail}`);
        chain = step.state;
      }
      expect(chain.nextRevision).toBe(6);
      expect((await store.streamHeads([stream, streamName('none')])).get(stream)).toEqual({ revision: 5, hash: chain.head });
      // Every event read through $all carries the same link (once visible: $all stops at the horizon that open transactions hold back).
      let viaAll: RecordedEvent[] = [];
      for (let i = 0; i < 400 && viaAll.length < events.length; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 25));
        viaAll = (await store.readAll(events[0]!.position - 1, 1000)).filter((e) => e.streamId === stream);
      }
      expect(viaAll.map((e) => e.hash)).toEqual(events.map((e) => e.hash));
    });

    it('chains concurrent appends to one stream with `any` into one unbroken chain', async () => {
      const stream = streamName('chain_race');
      await Promise.all(Array.from({ length: 8 }, (_, i) => store.append(stream, [event('Racer', { i })], 'any')));
      let chain = emptyChain();
      for (const recorded of await store.readStream(stream)) {
        const step = verifyNext(chain, recorded);
        if ('problem' in step) throw new Error(`${step.problem.kind} at revision ${step.problem.revision}: ${step.problem.detail}`);
        chain = step.state;
      }
      expect(chain.nextRevision).toBe(8);
    });
  });
}
