import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { spawnWorker } from '../support/runProcess.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

describe('a worker killed in the middle of deliveries', () => {
  let t: TestRuntime;
  let receiver: HttpsReceiver;
  let hook: string;
  let caFile: string;
  let holding = true;
  const received: { delivery: string; executionId: string }[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver((req, res) => {
      received.push({ delivery: String(req.headers['x-service-delivery']), executionId: JSON.parse(req.body).executionId });
      // While holding, requests get no answer: the worker dies with its attempts in flight.
      if (!holding) res.writeHead(200).end('ok');
    });
    caFile = receiver.caFile;
    hook = `${receiver.url}/hook`;
    t = await createTestRuntime('delivery_crash', {
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: caFile,
      SEQFLOW_DELIVERY_LEASE_MS: '1500',
      SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100',
    });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'f', name: 'f', steps: [{ block: { name: 'c', processor_type: 'code', code: 'return 1;' } }] }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    await receiver.close();
    await t?.close();
  });

  it('loses no delivery: after the leases run out, another worker delivers each under the same id', async () => {
    const worker = spawnWorker({
      DATABASE_URL: t.database.url,
      SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'),
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: caFile,
      SEQFLOW_DELIVERY_LEASE_MS: '1500',
      SEQFLOW_WEBHOOK_TIMEOUT_MS: '60000',
      SEQFLOW_WORKER_ID: 'doomed',
    });
    const project = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow();
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'f' }, project.id);
    const executions = Array.from({ length: 5 }, () => randomUUID());
    for (const executionId of executions) {
      await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'go', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: { url: hook, events: ['flow.completed', 'flow.failed'] } });
    }
    for (let i = 0; i < 600 && new Set(received.map((r) => r.executionId)).size < 5; i++) await new Promise((r) => setTimeout(r, 50));
    expect(new Set(received.map((r) => r.executionId)).size).toBe(5); // every delivery in flight at the receiver

    process.kill(-worker.pid!, 'SIGKILL');
    await new Promise((resolve) => worker.on('exit', resolve));
    const firstIds = new Map(received.map((r) => [r.executionId, r.delivery]));
    holding = false;

    const workers = await startWorkers(t.runtime);
    try {
      for (let i = 0; i < 400; i++) {
        const rows = await t.runtime.db.selectFrom('webhook_deliveries').select(['execution_id', 'status']).execute();
        if (rows.length === 5 && rows.every((r) => r.status === 'succeeded')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await workers.stop();
    }
    const rows = await t.runtime.db.selectFrom('webhook_deliveries').selectAll().execute();
    expect(rows.map((r) => r.status)).toEqual(Array(5).fill('succeeded'));
    for (const executionId of executions) {
      const attempts = received.filter((r) => r.executionId === executionId);
      expect(attempts.length).toBeGreaterThanOrEqual(2); // the lost attempt, then the one that landed
      expect(new Set(attempts.map((a) => a.delivery))).toEqual(new Set([firstIds.get(executionId)]));
    }
  });
});
