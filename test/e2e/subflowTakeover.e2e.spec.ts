import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { childExecutionId } from '../../src/domain/blocks/flow/subflowLink.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { createJobRunner } from '../../src/workers/jobRunner.ts';
import { eventsApart } from '../support/runEventsApart.ts';
import { spawnWorker } from '../support/runProcess.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { type KeyedTicketServer, startKeyedTicketServer } from '../support/keyedTicketServer.ts';

/**
 * A job whose worker is killed (SIGKILL) inside its child run: after the child's POST reached the
 * server, before the child recorded it. The worker that takes the parent over finds the child its
 * predecessor started (its id is named by the parent and the block) and continues it with a claim,
 * rather than starting a second one: one child run, one ticket, the parent completed with it.
 */
describe('a sub-flow whose worker is killed inside the child run', () => {
  let t: TestRuntime;
  let tickets: KeyedTicketServer;

  beforeAll(async () => {
    tickets = await startKeyedTicketServer();
    t = await createTestRuntime('subflow_takeover', { SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    const filer = [
      { block: { name: 'prep', processor_type: 'code', code: 'return { subject: `refund: ${input.message}` };' } },
      { block: { name: 'file', processor_type: 'http', processor_config: { request: { method: 'POST', url: `${tickets.url}/tickets`, body: { subject: '{{previous_output.subject}}' } }, expect_status: [201], timeout_ms: 60_000 } } },
    ];
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'filer', name: 'Filer', steps: filer }, production: true }, testPrincipal);
    const outer = [{ block: { name: 'inner', processor_type: 'flow', processor_config: { subflow: { flow: 'filer' } } } }];
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'outer', name: 'Outer', steps: outer }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
  });
  afterAll(async () => {
    await t?.close();
    await tickets?.close();
  });

  it('continues the same child: one child run, one ticket, and the parent completes with its result', async () => {
    const workerA = spawnWorker({ ...t.database.service.env, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_JOB_LEASE_MS: '1000', SEQFLOW_WORKER_ID: 'worker-a' });
    const project = (await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow()).id;
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'outer' }, project);
    const executionId = randomUUID();
    const childId = childExecutionId(executionId, 0, 'inner', null);
    await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'order 42', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: null });

    await until(() => tickets.posts.length === 1, "worker A's child run's POST", 60_000);
    process.kill(-workerA.pid!, 'SIGKILL');
    await new Promise((resolve) => workerA.on('exit', resolve));

    const stream = async (id: string) => eventsApart(await t.runtime.eventStore.readStream(`execution-${id}`)).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
    const workerB = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 1000, concurrency: 2, workerId: 'worker-b', pollMs: 50 });
    workerB.start();
    try {
      await until(async () => (await stream(executionId)).at(-1)?.type === 'ExecutionCompleted', 'the takeover to complete the parent', 60_000);
    } finally {
      await workerB.stop();
    }

    expect([...tickets.tickets.values()]).toEqual(['T-1']);
    expect(tickets.posts.map((p) => p.key)).toEqual([tickets.posts[0]!.key, tickets.posts[0]!.key]);
    const parent = await stream(executionId);
    expect(parent.filter((e) => e.type === 'SubflowStarted').map((e) => e.data.childExecutionId)).toEqual([childId]);
    expect(parent.filter((e) => e.type === 'JobClaimed').map((e) => e.data.worker)).toEqual(['worker-a', 'worker-b']);
    expect(parent.at(-1)).toMatchObject({ type: 'ExecutionCompleted', data: { result: { ticket: 'T-1', subject: 'refund: order 42' } } });
    const child = await stream(childId);
    expect(child.filter((e) => e.type === 'ExecutionRequested')).toHaveLength(1);
    // Continued once, by the worker that took the parent over; its first block not run again.
    expect(child.filter((e) => e.type === 'JobClaimed')).toHaveLength(1);
    expect(child.filter((e) => e.type === 'ExecutionStepCompleted').map((e) => e.data.blockName)).toEqual(['prep', 'file']);
    expect(child.at(-1)).toMatchObject({ type: 'ExecutionCompleted', data: { result: { ticket: 'T-1' } } });
    await t.runtime.projections.catchUp();
    const runs = await t.runtime.db.selectFrom('runs').select(['execution_id', 'status']).where('parent_execution_id', '=', executionId).execute();
    expect(runs).toEqual([{ execution_id: childId, status: 'completed' }]);
  });
});
