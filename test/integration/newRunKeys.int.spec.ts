import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import type { DeliveryEvent } from '../../src/domain/webhooks/deliveryEvents.ts';
import { type EventStore, WrongExpectedRevision } from '../../src/eventstore/eventStore.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { sealingEventStore } from '../../src/eventstore/sealingEventStore.ts';
import { newDataKey } from '../../src/security/runDataCipher.ts';
import { type RunDataKeys, createRunDataKeys } from '../../src/security/runDataKeys.ts';
import { SealedValueUnreadableError } from '../../src/security/runDataCipher.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { verifyReadModels } from '../../src/projections/readModelVerification.ts';
import { allProjections } from '../../src/projections/allProjections.ts';

const metadata = (executionId: string) => ({ correlationId: executionId, causationId: null, principal: { kind: 'system' as const, id: 'test' }, occurredAt: new Date().toISOString() });
const toAppend = (executionId: string, events: (ExecutionEvent | DeliveryEvent)[]) => events.map((e) => ({ id: randomUUID(), ...encodeEvent(e), metadata: metadata(executionId) }));
const requested = (executionId: string): ExecutionEvent => ({
  type: 'ExecutionRequested',
  data: { executionId, flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'async', message: 'carol@example.com', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: 'https://hooks.example/x', callbackEvents: ['flow.completed'], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: { scheduleId: 's', scheduledFor: '2026-12-02T00:00:00.000Z' }, parent: null },
});
const created = (executionId: string, deliveryId: string): DeliveryEvent => ({
  type: 'DeliveryCreated',
  data: { deliveryId, organizationId: 'o', executionId, flowId: 'f', event: 'flow.completed', url: 'https://hooks.example/x', body: '{"result":"carol@example.com"}', truncated: false },
});

/**
 * Issue 60 point 6: a data key is used only once the append that stores it is durable. Two processes
 * start the same run id (a schedule's firing, its id fixed by the schedule and the time): each makes
 * a key, only the winner's is stored. The loser must seal nothing with its own, not even while its
 * losing append is still in flight (the red team's delivery sealed under a key stored nowhere).
 */
describe("a new run's key, two processes starting the same run", () => {
  let t: TestRuntime;
  let inner: EventStore;

  beforeAll(async () => {
    t = await createTestRuntime('new_run_keys');
    inner = createPostgresEventStore({ pool: t.runtime.pool, connectionString: t.database.url });
  });
  afterAll(async () => {
    await inner?.close();
    await t?.close();
  });

  /** Process B: its own keys, its own sealing, the real adapter, its first append to `held` held until released. */
  function processB(held: string) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    const gated: EventStore = {
      ...inner,
      storesDataKeys: inner.storesDataKeys,
      append: async (streamId, events, expected, options) => {
        if (streamId === held) {
          entered();
          await released;
        }
        return inner.append(streamId, events, expected, options);
      },
    };
    const keys = createRunDataKeys(t.runtime.pool, t.runtime.masterKey, { flushedWithLog: true });
    return { store: sealingEventStore(gated, keys), keys, holding, release };
  }

  it("seals the loser's later events under the winner's stored key: every process opens them", async () => {
    const executionId = randomUUID();
    const stream = `execution-${executionId}`;
    const b = processB(stream);
    // B starts the run: its key is made, its append held in flight.
    const losing = b.store.append(stream, toAppend(executionId, [requested(executionId)]), 'no_stream');
    await b.holding;
    // A starts the same run and wins.
    await t.runtime.eventStore.append(stream, toAppend(executionId, [requested(executionId)]), 'no_stream');
    // B's delivery creator sees A's run and seals a delivery for it, while its own first append is still in flight.
    expect(b.keys.madeHere(executionId)).toBeUndefined();
    const deliveryId = randomUUID();
    await b.store.append(`delivery-${deliveryId}`, toAppend(executionId, [created(executionId, deliveryId)]), 'no_stream');
    b.release();
    await expect(losing).rejects.toBeInstanceOf(WrongExpectedRevision);

    const [delivery] = await t.runtime.eventStore.readStream(`delivery-${deliveryId}`);
    expect(delivery).toMatchObject({ type: 'DeliveryCreated', data: { body: '{"result":"carol@example.com"}' } });
    expect((await b.store.readStream(stream))[0]).toMatchObject({ data: { message: 'carol@example.com' } });
  });

  it("keeps a new run's key pending until its append commits, and drops it when the append loses", async () => {
    const keys = createRunDataKeys(t.runtime.pool, t.runtime.masterKey, { flushedWithLog: true });
    const executionId = randomUUID();
    const made = keys.forNewRun(executionId);
    expect(keys.madeHere(executionId)).toBeUndefined();
    // A retried append seals to the same bytes: the same key while pending.
    expect(keys.forNewRun(executionId).key.equals(made.key)).toBe(true);
    keys.appended(executionId);
    expect(keys.madeHere(executionId)?.equals(made.key)).toBe(true);
    const lost = randomUUID();
    keys.forNewRun(lost);
    keys.forget(lost);
    keys.appended(lost);
    expect(keys.madeHere(lost)).toBeUndefined();
  });

  it('reads a sealed value that does not open as an error, or, asked to, marked unreadable with its fields at their erased values', async () => {
    const executionId = randomUUID();
    await t.runtime.eventStore.append(`execution-${executionId}`, toAppend(executionId, [requested(executionId)]), 'no_stream');
    // A writer whose key for the run is one the log never stored (what the race above used to leave).
    const stray: RunDataKeys = { ...createRunDataKeys(t.runtime.pool, t.runtime.masterKey, { flushedWithLog: true }), madeHere: () => newDataKey(), forSealing: () => Promise.resolve(newDataKey()) };
    const deliveryId = randomUUID();
    await sealingEventStore(inner, stray).append(`delivery-${deliveryId}`, toAppend(executionId, [created(executionId, deliveryId)]), 'no_stream');
    await expect(t.runtime.eventStore.readStream(`delivery-${deliveryId}`)).rejects.toBeInstanceOf(SealedValueUnreadableError);
    const [marked] = await t.runtime.eventStore.readStream(`delivery-${deliveryId}`, { unreadable: 'mark' });
    expect(marked).toMatchObject({ type: 'DeliveryCreated', data: { body: '', deliveryId }, unreadableFields: ['body'] });
    expect(marked!.erasedFields).toBeUndefined();
    // A finding of verify-log and projections verify, naming the event and its run: never an abort of the whole command.
    const finding = { streamId: `delivery-${deliveryId}`, revision: 0, position: marked!.position, type: 'DeliveryCreated', executionId, fields: ['body'] };
    for (const verified of [await verifyLog(t.runtime.eventStore), await verifyLog(t.runtime.eventStore, { streamId: `delivery-${deliveryId}` })]) {
      expect(verified.problem).toBeNull();
      expect(verified.unreadable.events).toContainEqual(finding);
    }
    await t.runtime.projections.catchUp();
    const rebuilt = await verifyReadModels({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: allProjections, logger: t.runtime.logger, databaseUrl: t.runtime.databaseUrl });
    expect(rebuilt.unreadable.events).toContainEqual(finding);
    expect(rebuilt.ok).toBe(true);
  });
});
