import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyChain, verifyNext } from '../../src/domain/audit/chainVerification.ts';
import { type EventToAppend, WrongExpectedRevision } from '../../src/eventstore/eventStore.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  data,
  metadata: { correlationId: randomUUID(), causationId: null, principal: { kind: 'system', id: 'group-commit-test' }, occurredAt: new Date().toISOString() },
});
const stream = (label: string) => `gc_${label}-${randomUUID()}`;

/**
 * Group commit, made deterministic: appends made in the same tick as one that starts a commit wait
 * for it, then go together as one batch (one transaction: the events share a transaction id).
 */
describe('PostgreSQL event log: group commit', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let store: ReturnType<typeof createPostgresEventStore>;
  const transactionsOf = async (streams: string[]) =>
    (await pool.query<{ transaction_id: string }>('SELECT DISTINCT transaction_id::text FROM seqflow_events WHERE stream_id = ANY($1)', [streams])).rows.map((r) => r.transaction_id);

  beforeAll(async () => {
    database = await createTestDatabase('group_commit');
    pool = new pg.Pool({ connectionString: database.url, max: 10 });
    pool.on('error', () => undefined);
    // One call in flight: the appends made beside the first wait for it, then go as one batch.
    store = createPostgresEventStore({ pool, connectionString: database.url, groupCommit: { maxInFlight: 1 } });
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await database.drop();
  });

  it('commits the appends that arrive while a commit is in flight together, each with its own revision and position', async () => {
    const streams = Array.from({ length: 6 }, (_, i) => stream(`many${i}`));
    const [first, ...rest] = streams.map((s, i) => store.append(s, [event('A', { i }), event('B', { i })], 'no_stream'));
    await first;
    const results = await Promise.all(rest);
    expect(results.map((r) => r.nextExpectedRevision)).toEqual([1, 1, 1, 1, 1]);
    expect(new Set(results.map((r) => r.position)).size).toBe(5);
    expect(await transactionsOf(streams.slice(1))).toHaveLength(1);
    expect(await transactionsOf(streams)).toHaveLength(2);
    for (const [i, s] of streams.entries()) expect((await store.readStream(s)).map((e) => [e.type, e.revision, e.data])).toEqual([['A', 0, { i }], ['B', 1, { i }]]);
  });

  it('fails only the append whose expected revision is wrong when two in one batch race on a stream', async () => {
    const [busy, raced, other] = [stream('busy'), stream('raced'), stream('other')];
    const started = store.append(busy, [event('Start')], 'no_stream');
    const outcomes = await Promise.allSettled([store.append(raced, [event('Winner')], 'no_stream'), store.append(raced, [event('Loser')], 'no_stream'), store.append(other, [event('Bystander')], 'no_stream')]);
    await started;
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { nextExpectedRevision: 0 } });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: expect.any(WrongExpectedRevision) });
    expect((outcomes[1] as PromiseRejectedResult).reason.actual).toBe(0);
    expect(outcomes[2]).toMatchObject({ status: 'fulfilled', value: { nextExpectedRevision: 0 } });
    expect((await store.readStream(raced)).map((e) => e.type)).toEqual(['Winner']);
    expect(await transactionsOf([raced, other])).toHaveLength(1);
  });

  it('extends one stream twice in a batch in order, with an unbroken hash chain', async () => {
    const [busy, twice] = [stream('busy'), stream('twice')];
    const started = store.append(busy, [event('Start')], 'no_stream');
    const results = await Promise.all([store.append(twice, [event('One'), event('Two')], 'no_stream'), store.append(twice, [event('Three')], 1), store.append(twice, [event('Four')], 'any')]);
    await started;
    expect(results.map((r) => r.nextExpectedRevision)).toEqual([1, 2, 3]);
    const events = await store.readStream(twice);
    expect(events.map((e) => e.type)).toEqual(['One', 'Two', 'Three', 'Four']);
    expect(events.map((e) => e.position)).toEqual([...events.map((e) => e.position)].sort((a, b) => a - b));
    let chain = emptyChain();
    for (const recorded of events) {
      const step = verifyNext(chain, recorded);
      if ('problem' in step) throw new Error(`${step.problem.kind} at revision ${step.problem.revision}`);
      chain = step.state;
    }
    expect((await store.streamHeads([twice])).get(twice)).toEqual({ revision: 3, hash: chain.head });
  });

  it('makes each append again on its own when the batch fails as a whole: the others land, the bad one answers its error', async () => {
    const [busy, good1, good2, partly] = [stream('busy'), stream('good1'), stream('good2'), stream('partly')];
    const already = event('Already');
    await store.append(partly, [already], 'no_stream');
    const started = store.append(busy, [event('Start')], 'no_stream');
    // Half of this append is in the log already: the batch raises, and is rolled back as a whole.
    const outcomes = await Promise.allSettled([store.append(good1, [event('G1')], 'no_stream'), store.append(partly, [already, event('New')], 0), store.append(good2, [event('G2')], 'no_stream')]);
    await started;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toContain('partly appended already');
    expect((await store.readStream(good1)).map((e) => e.type)).toEqual(['G1']);
    expect((await store.readStream(good2)).map((e) => e.type)).toEqual(['G2']);
    expect((await store.readStream(partly)).map((e) => e.type)).toEqual(['Already']);
  });

  it('answers a retried batch append (a lost reply) with the first result instead of a second copy', async () => {
    const [busy, retried] = [stream('busy'), stream('retried')];
    const events = [event('Once'), event('Only')];
    const first = await store.append(retried, events, 'no_stream');
    const started = store.append(busy, [event('Start')], 'no_stream');
    const [again] = await Promise.all([store.append(retried, events, 'no_stream'), store.append(stream('another'), [event('X')], 'no_stream')]);
    await started;
    expect(again).toEqual(first);
    expect(await store.readStream(retried)).toHaveLength(2);
  });

  it('keeps several batches in flight at once free of deadlocks and each stream one unbroken chain', async () => {
    const busy = createPostgresEventStore({ pool, connectionString: database.url, groupCommit: { maxInFlight: 4 } });
    const streams = Array.from({ length: 6 }, (_, i) => stream(`shared${i}`));
    // 400 appends with `any`, each to two streams picked in opposite orders: without one lock order, batches would deadlock.
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => [
        busy.append(streams[i % 6]!, [event('Forward', { i })], 'any'),
        busy.append(streams[5 - (i % 6)]!, [event('Backward', { i })], 'any'),
      ]).flat(),
    );
    await busy.close();
    let total = 0;
    for (const s of streams) {
      let chain = emptyChain();
      const events = await store.readStream(s);
      for (const recorded of events) {
        const step = verifyNext(chain, recorded);
        if ('problem' in step) throw new Error(`${step.problem.kind} at revision ${step.problem.revision}`);
        chain = step.state;
      }
      total += events.length;
    }
    expect(total).toBe(400);
    const transactions = (await pool.query<{ n: string }>('SELECT count(DISTINCT transaction_id)::text AS n FROM seqflow_events WHERE stream_id = ANY($1)', [streams])).rows[0]!.n;
    expect(Number(transactions)).toBeLessThan(400); // batched: fewer transactions than appends
  });
});
