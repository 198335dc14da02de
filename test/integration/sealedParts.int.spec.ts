import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

/**
 * A run's sealed events in one append share one box, held by the first of them
 * (src/domain/privacy/sealedFields.ts). Every reader must still open each event alone: a stream
 * read from a later revision, a subscriber whose batch is cut inside the append.
 */
describe("a run's events sealed together in one append", () => {
  let t: TestRuntime;
  const executionId = randomUUID();
  const stream = `execution-${executionId}`;
  const run: ExecutionEvent[] = [
    {
      type: 'ExecutionRequested',
      data: { executionId, flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'my card is 4111 1111', parameters: { customer_id: 42 }, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
    },
    { type: 'ExecutionStepCompleted', data: { executionId, stepIndex: 0, blockId: 'b', blockName: 'relay', iteration: null, input: 'my card is 4111 1111', output: 'my card is 4111 1111', model: null, usage: null, durationMs: 0, attempts: 1, validationErrors: [] } },
    { type: 'ExecutionCompleted', data: { executionId, result: { output: 'my card is 4111 1111' }, durationMs: 1 } },
  ];
  let position = 0;

  beforeAll(async () => {
    t = await createTestRuntime('sealed_parts');
    const metadata = { correlationId: executionId, causationId: null, principal: { kind: 'system' as const, id: 'test' }, occurredAt: new Date().toISOString() };
    position = (await t.runtime.eventStore.append(stream, run.map((e) => ({ id: randomUUID(), ...encodeEvent(e), metadata })), 'no_stream')).position;
  });
  afterAll(async () => {
    await t?.close();
  });

  const plain = (events: RecordedEvent[]) => events.map((e) => ({ type: e.type, data: e.data, erased: e.erasedFields ?? [] }));
  const expected = run.map((e) => ({ type: e.type, data: JSON.parse(JSON.stringify(e.data)) as unknown, erased: [] }));

  it('stores one box in the first event and a reference to it in each other, with no plaintext', async () => {
    const { rows } = await t.runtime.pool.query<{ data: Record<string, unknown> }>('SELECT data FROM seqflow_events WHERE stream_id = $1 ORDER BY stream_revision', [stream]);
    expect(rows.map((r) => r.data.$sealed)).toEqual([expect.stringMatching(/^sealed:v3:/), 'sealed:in:1:1', 'sealed:in:2:2']);
    expect(JSON.stringify(rows)).not.toContain('4111');
  });

  it('opens every event, read whole or from any revision on (the holder read from the log)', async () => {
    expect(plain(await t.runtime.eventStore.readStream(stream))).toEqual(expected);
    for (const from of [1, 2]) expect(plain(await t.runtime.eventStore.readStream(stream, { fromRevision: from, maxCount: 1 }))).toEqual([expected[from]]);
  });

  it('opens every event for a subscriber whose batches hold one event each', async () => {
    const seen: RecordedEvent[] = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const subscription = t.runtime.eventStore.subscribe({
      from: position - run.length,
      batchSize: 1,
      openSealed: run.map((e) => e.type),
      handler: async (events) => {
        seen.push(...events.filter((e) => e.streamId === stream));
        if (seen.length === run.length) done();
      },
    });
    await all;
    await subscription.stop();
    expect(plain(seen)).toEqual(expected);
  });
});
