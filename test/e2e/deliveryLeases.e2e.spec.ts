import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { RETRY_POLICIES } from '../../src/domain/retry/retryPolicy.ts';
import { getWebhookSecret } from '../../src/commands/webhookSecretCommands.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { createWebhookDispatcher } from '../../src/workers/webhookDispatcher.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { createTestRuntime, seedProject, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

/** The receiver answers after this long: several delivery leases' worth, and several sweeps. */
const RECEIVER_DELAY_MS = 2500;

describe('delivery leases', () => {
  let t: TestRuntime;
  let receiver: HttpsReceiver;
  const received: string[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver((req, res) => {
      received.push(String(req.headers['x-service-delivery']));
      setTimeout(() => res.writeHead(200).end('ok'), RECEIVER_DELAY_MS);
    });
    t = await createTestRuntime('lease_renewal', {
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_DELIVERY_LEASE_MS: '600',
      SEQFLOW_WEBHOOK_TIMEOUT_MS: '10000',
    });
    await seedProject(t.runtime, { f: [{ block: { name: 'c', processor_type: 'code', code: 'return 1;' } }] });
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('a receiver slower than the lease gets one attempt: the dispatcher renews the lease while it waits, so no sweep starts a second attempt', async () => {
    const project = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow();
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'f' }, project.id);
    const executionId = randomUUID();
    const workers = await startWorkers(t.runtime);
    try {
      await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'go', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: { url: `${receiver.url}/hook`, events: ['flow.completed'] } });
      let row;
      for (let i = 0; i < 400 && row?.status !== 'succeeded'; i++) {
        row = await t.runtime.db.selectFrom('webhook_deliveries').selectAll().where('execution_id', '=', executionId).executeTakeFirst();
        if (row?.status !== 'succeeded') await new Promise((r) => setTimeout(r, 50));
      }
      expect(row).toMatchObject({ status: 'succeeded', attempts: 1 });
      expect(received).toEqual([row!.id]);
    } finally {
      await workers.stop();
    }
  });

  it('an attempt whose outcome cannot be recorded leaves the delivery in flight: after the retry policy\'s delay another dispatcher makes it again, under the same attempt number', async () => {
    const organization = await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow();
    await getWebhookSecret(t.runtime.commands, organization.id, t.runtime.masterKey, testPrincipal);
    const deliveryId = randomUUID();
    const body = JSON.stringify({ event: 'flow.completed', deliveryId });
    await handleCommand(t.runtime.commands, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId: organization.id, executionId: randomUUID(), flowId: 'f', event: 'flow.completed', url: `${receiver.url}/hook`, body, truncated: false } } }, testPrincipal);
    const before = received.length;

    // A dispatcher whose log refuses every outcome it records (the database went away after the POST).
    const { eventStore } = t.runtime.commands;
    const refusing = Object.create(eventStore, {
      append: { value: (stream: string, events: { type: string }[], ...rest: unknown[]) => (events.some((e) => e.type === 'DeliveryAttemptFinished') ? Promise.reject(new Error('connection terminated')) : (eventStore.append as (...args: unknown[]) => unknown)(stream, events, ...rest)) },
    }) as typeof eventStore;
    const broken = createWebhookDispatcher({ db: t.runtime.db, commands: { ...t.runtime.commands, eventStore: refusing }, guard: t.runtime.execution.guard, masterKey: t.runtime.masterKey, logger: t.runtime.logger, tracer: t.runtime.tracing.tracer, worker: 'broken', leaseMs: 60_000 });
    await broken.offer(deliveryId);
    await broken.stop();
    expect(await broken.state(deliveryId)).toMatchObject({ status: 'in_flight', attempts: 1, starts: 1 });
    expect(received.slice(before)).toEqual([deliveryId]);
    // Given back after the policy's delay (its first is at most 1 s), not after the whole 60 s lease.
    const lease = await sql<{ owner: string; left: number }>`SELECT owner, extract(epoch FROM expires_at - now()) * 1000 AS left FROM delivery_leases WHERE delivery_id = ${deliveryId}`.execute(t.runtime.db);
    expect(lease.rows[0]!.owner).toBe('broken');
    expect(Number(lease.rows[0]!.left)).toBeLessThanOrEqual(RETRY_POLICIES.deliveryAttempt.initialDelayMs);

    await t.runtime.projections.catchUp();
    const workers = await startWorkers(t.runtime);
    try {
      let row;
      for (let i = 0; i < 400 && row?.status !== 'succeeded'; i++) {
        row = await t.runtime.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst();
        if (row?.status !== 'succeeded') await new Promise((r) => setTimeout(r, 50));
      }
      expect(row).toMatchObject({ status: 'succeeded', attempts: 1 });
      // The receiver saw the same delivery twice (it dedupes on X-Service-Delivery); the log, one attempt started twice.
      expect(received.slice(before)).toEqual([deliveryId, deliveryId]);
      expect((await t.runtime.eventStore.readStream(deliveryStream(deliveryId))).map((e) => e.type)).toEqual(['DeliveryCreated', 'DeliveryAttemptStarted', 'DeliveryAttemptStarted', 'DeliveryAttemptFinished']);
    } finally {
      await workers.stop();
    }
  });

  it('a worker whose master key cannot open the signing secret records nothing and makes no attempt', async () => {
    const organization = await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow();
    const deliveryId = randomUUID();
    await handleCommand(t.runtime.commands, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId: organization.id, executionId: randomUUID(), flowId: 'f', event: 'flow.completed', url: `${receiver.url}/hook`, body: '{}', truncated: false } } }, testPrincipal);
    const before = received.length;
    const broken = createWebhookDispatcher({ db: t.runtime.db, commands: t.runtime.commands, guard: t.runtime.execution.guard, masterKey: randomBytes(32), logger: t.runtime.logger, tracer: t.runtime.tracing.tracer, worker: 'wrong-key', leaseMs: 60_000 });
    await broken.offer(deliveryId);
    await broken.stop();
    expect(await broken.state(deliveryId)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(received.length).toBe(before);
  });
});
