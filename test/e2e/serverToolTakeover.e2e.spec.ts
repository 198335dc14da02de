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
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';

/**
 * The same crash for an llm block's http server tool: a worker killed (SIGKILL) after the tool's
 * POST reached the server and before the step's record. The worker that takes the job over asks
 * the model again, which names the call anew (another provider id) with the same arguments; the
 * key, derived from the turn, the tool and the arguments, is the same, and one ticket is filed.
 */
describe('a server tool whose worker is killed between its request and its record', () => {
  let t: TestRuntime;
  let model: ScriptedModelServer;
  let tickets: KeyedTicketServer;

  beforeAll(async () => {
    tickets = await startKeyedTicketServer();
    const url = tickets.url;
    model = await startScriptedModelServer();
    t = await createTestRuntime('tool_takeover', { SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    const fileTicket = { type: 'http', name: 'file_ticket', parameters: { type: 'object', properties: { subject: { type: 'string' } } }, request: { method: 'POST', url: `${url}/tickets`, body: { subject: '{{arguments.subject}}' } }, expect_status: [201], timeout_ms: 60_000 };
    const steps = [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4o', prompt: 'Handle {{message}}', processor_config: { server_tools: [fileTicket] } } }];
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'file', name: 'File', steps }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
    await tickets?.close();
  });

  it('files one ticket: the takeover sends the same key, and the run completes with it', async () => {
    const workerA = spawnWorker({ ...t.database.service.env, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_JOB_LEASE_MS: '1000', SEQFLOW_WORKER_ID: 'worker-a' });
    const project = (await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow()).id;
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'file' }, project);
    model.reset();
    // Asks for the ticket until the conversation holds its result; each request's call has an id of its own.
    model.respond = (request) => (request.body.messages.some((m) => m.role === 'tool') ? { content: 'filed' } : { toolCalls: [{ id: `call_${model.requests.length}`, name: 'file_ticket', arguments: '{"subject":"refund order 42"}' }] });
    const executionId = randomUUID();
    await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'refund order 42', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: null });

    // Worker A's tool POST has reached the server (the ticket is filed); it waits for the answer, and dies.
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
    // The model named the call anew on the takeover: the key is not the provider's id.
    expect(model.requests.filter((r) => !r.body.messages.some((m) => m.role === 'tool'))).toHaveLength(2);
    const events = await stream();
    expect(events.at(-1)).toMatchObject({ type: 'ExecutionCompleted', data: { result: { text: 'filed' } } });
    expect(events.filter((e) => e.type === 'JobClaimed').map((e) => (e.data as { worker: string }).worker)).toEqual(['worker-a', 'worker-b']);
    // Worker A's call died with it, unrecorded; worker B's is the run's one recorded call.
    expect(events.filter((e) => e.type === 'ServerToolCalled').map((e) => (e.data as { toolCallId: string }).toolCallId)).toEqual(['call_2']);
    expect(events.filter((e) => e.type === 'HttpRequestAttempted').map((e) => (e.data as { status: number }).status)).toEqual([201]);
  });
});
