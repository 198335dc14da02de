import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { deliveryIdFor } from '../../src/commands/deliveryCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import type { ExecutableFlow } from '../../src/caches/flowCatalog.ts';
import { createJobRunner } from '../../src/workers/jobRunner.ts';
import { createWebhookDispatcher } from '../../src/workers/webhookDispatcher.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

/** Polls `probe` until it answers (20 s at most): waiting for work done elsewhere, not timing it. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('work accepted in this process is taken at once, before the read models show it', () => {
  let t: TestRuntime;
  let receiver: HttpsReceiver;
  let flow: ExecutableFlow;

  beforeAll(async () => {
    receiver = await startHttpsReceiver((_request, res) => res.writeHead(204).end());
    t = await createTestRuntime('handoff', { SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    const project = await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'pass', name: 'pass', steps: [{ block: { name: 'relay', processor_type: 'passthrough' } }] }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'pass' }, project.id);
    // The projections are not running from here on: nothing below may wait for a read model.
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('a job accepted here is run by this process runner while its jobs row does not exist yet', async () => {
    const runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 5000, concurrency: 2, workerId: 'local', pollMs: 60_000, accepted: t.runtime.execution.updates.onJobAccepted });
    const task = runner.start();
    try {
      const executionId = randomUUID();
      await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'hello', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal });
      const ending = await until(async () => (await t.runtime.eventStore.readStream(executionStream(executionId))).find((e) => e.type === 'ExecutionCompleted'));
      expect(ending.type).toBe('ExecutionCompleted');
      expect(await t.runtime.db.selectFrom('jobs').select('execution_id').where('execution_id', '=', executionId).executeTakeFirst()).toBeUndefined();
      const lease = await until(() => t.runtime.db.selectFrom('job_leases').selectAll().where('execution_id', '=', executionId).where('done_at', 'is not', null).executeTakeFirst());
      expect(lease).toMatchObject({ owner: 'local', claims: 1 });
    } finally {
      await task.stop();
    }
  });

  it('a new delivery is attempted on offer, and a sweep does not attempt it again while the read model still shows it pending', async () => {
    const dispatcher = createWebhookDispatcher({ db: t.runtime.db, commands: t.runtime.commands, guard: t.runtime.execution.guard, masterKey: t.runtime.masterKey, logger: t.runtime.logger, worker: 'local', tracer: t.runtime.tracing.tracer });
    const executionId = randomUUID();
    const deliveryId = deliveryIdFor(executionId, 'flow.completed');
    const body = JSON.stringify({ event: 'flow.completed', executionId });
    await handleCommand(
      t.runtime.commands,
      deliveryStream(deliveryId),
      delivery,
      { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId: flow.organizationId, executionId, flowId: flow.flowId, event: 'flow.completed', url: `${receiver.url}/hook`, body, truncated: false } } },
      testPrincipal,
    );
    await t.runtime.projections.catchUp(); // the read model shows it pending, and keeps doing so below

    await dispatcher.offer(deliveryId);
    const finished = await until(async () => (await t.runtime.eventStore.readStream(deliveryStream(deliveryId))).find((e) => e.type === 'DeliveryAttemptFinished'));
    expect(finished.data).toMatchObject({ attempt: 1, outcome: 'succeeded' });
    expect((await t.runtime.db.selectFrom('webhook_deliveries').select('status').where('id', '=', deliveryId).executeTakeFirstOrThrow()).status).toBe('pending');

    await dispatcher.poke();
    const events = await t.runtime.eventStore.readStream(deliveryStream(deliveryId));
    expect(events.filter((e) => e.type === 'DeliveryAttemptStarted')).toHaveLength(1);
    expect(receiver.received.filter((r) => r.body === body)).toHaveLength(1);
    expect(await t.runtime.db.selectFrom('delivery_leases').select('finished_attempts').where('delivery_id', '=', deliveryId).executeTakeFirstOrThrow()).toEqual({ finished_attempts: 1 });

    // Once the read model shows the attempt, the finished lease goes (at the dispatcher's next tick).
    await t.runtime.projections.catchUp();
    const task = dispatcher.start();
    try {
      await until(async () => ((await t.runtime.db.selectFrom('delivery_leases').select('delivery_id').where('delivery_id', '=', deliveryId).executeTakeFirst()) ? undefined : true));
      expect((await t.runtime.db.selectFrom('webhook_deliveries').select('status').where('id', '=', deliveryId).executeTakeFirstOrThrow()).status).toBe('succeeded');
    } finally {
      await task.stop();
    }
  });
});
