import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { createJobRunner } from '../../src/workers/jobRunner.ts';
import { eventsApart } from '../support/runEventsApart.ts';
import { spawnWorker } from '../support/runProcess.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { type KeyedTicketServer, startKeyedTicketServer } from '../support/keyedTicketServer.ts';

/**
 * The crash an http block's Idempotency-Key is for: a worker killed (SIGKILL) after its POST reached
 * the server and before the step's record. The worker that takes the job over sends the request
 * again with the same key, and a server that honours keys (as Stripe's, or any ticketing API's)
 * files one ticket, not two.
 */
describe('an http block whose worker is killed between its request and its record', () => {
  let t: TestRuntime;
  let tickets: KeyedTicketServer;

  beforeAll(async () => {
    tickets = await startKeyedTicketServer();
    const url = tickets.url;
    t = await createTestRuntime('http_takeover', { SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    const steps = [{ block: { name: 'file', processor_type: 'http', processor_config: { request: { method: 'POST', url: `${url}/tickets`, body: { subject: '{{message}}' } }, expect_status: [201], timeout_ms: 60_000 } } }];
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'file', name: 'File', steps }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
  });
  afterAll(async () => {
    await t?.close();
    await tickets?.close();
  });

  it('files one ticket: the takeover sends the same key, and the run completes with it', async () => {
    const workerA = spawnWorker({ ...t.database.service.env, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_JOB_LEASE_MS: '1000', SEQFLOW_WORKER_ID: 'worker-a' });
    const project = (await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow()).id;
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'file' }, project);
    const executionId = randomUUID();
    await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'refund order 42', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: null });

    // Worker A's POST has reached the server (the ticket is filed); it waits for the answer, and dies.
    await until(() => tickets.posts.length === 1, "worker A's POST", 60_000);
    process.kill(-workerA.pid!, 'SIGKILL');
    await new Promise((resolve) => workerA.on('exit', resolve));

    const stream = async () => eventsApart(await t.runtime.eventStore.readStream(`execution-${executionId}`));
    const workerB = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 1000, concurrency: 2, workerId: 'worker-b', pollMs: 50 });
    workerB.start();
    try {
      await until(async () => (await stream()).at(-1)?.type === 'ExecutionCompleted', 'the takeover to complete the run', 60_000);
    } finally {
      await workerB.stop();
    }

    expect(tickets.posts).toHaveLength(2);
    expect(tickets.posts[0]!.key).toMatch(/^[0-9a-f]{64}$/);
    expect(tickets.posts[1]!.key).toBe(tickets.posts[0]!.key);
    expect([...tickets.tickets.values()]).toEqual(['T-1']);
    const events = await stream();
    expect(events.at(-1)).toMatchObject({ type: 'ExecutionCompleted', data: { result: { ticket: 'T-1', subject: 'refund order 42' } } });
    expect(events.filter((e) => e.type === 'JobClaimed').map((e) => (e.data as { worker: string }).worker)).toEqual(['worker-a', 'worker-b']);
    // Worker A's attempt died with it, unrecorded; worker B's is the run's one recorded attempt.
    expect(events.filter((e) => e.type === 'HttpRequestAttempted').map((e) => (e.data as { status: number }).status)).toEqual([201]);
  });
});
