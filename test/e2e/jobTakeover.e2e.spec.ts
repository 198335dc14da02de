import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { createJobRunner } from '../../src/workers/jobRunner.ts';
import { spawnWorker } from '../support/runProcess.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { eventsApart } from '../support/runEventsApart.ts';

const steps = [
  { block: { name: 'first', processor_type: 'llm', prompt: 'first: {{message}}' } },
  { block: { name: 'second', processor_type: 'llm', prompt: 'second: {{previous_output}}, named {{steps.first.output}}' } },
];

describe('a job whose worker process is killed mid-run', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('takeover', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'two', name: 'Two', steps }, production: true }, testPrincipal);
    await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal);
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  it('is taken over after its lease runs out and finishes without running the completed step again', async () => {
    // The first model call answers at once; the second hangs while the first worker holds the job.
    let hang = true;
    server.respond = (request) => {
      const prompt = String(request.body.messages[0]!.content);
      if (prompt.startsWith('first')) return { content: 'one' };
      return hang ? { content: 'never', delayMs: 60_000 } : { content: 'two' };
    };

    const workerA = spawnWorker({
      ...t.database.service.env,
      SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'),
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_JOB_LEASE_MS: '1000',
      SEQFLOW_WORKER_ID: 'worker-a',
    });
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'two' }, (await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow()).id);
    const executionId = randomUUID();
    await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'go', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: null });

    const stream = async () => eventsApart(await t.runtime.eventStore.readStream(`execution-${executionId}`));
    const secondStarted = async () => (await stream()).some((e) => e.type === 'ExecutionStepStarted' && (e.data as { blockName: string }).blockName === 'second');
    for (let i = 0; i < 600 && !(await secondStarted()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await secondStarted()).toBe(true);

    process.kill(-workerA.pid!, 'SIGKILL');
    await new Promise((resolve) => workerA.on('exit', resolve));
    hang = false;

    const workerB = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 1000, concurrency: 2, workerId: 'worker-b', pollMs: 50 });
    workerB.start();
    try {
      for (let i = 0; i < 300 && (await stream()).at(-1)?.type !== 'ExecutionCompleted'; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await workerB.stop();
    }

    const events = await stream();
    expect(events.at(-1)).toMatchObject({ type: 'ExecutionCompleted', data: { result: { text: 'two' } } });
    expect(events.filter((e) => e.type === 'JobClaimed').map((e) => e.data)).toEqual([
      { executionId, worker: 'worker-a', claim: 1 },
      { executionId, worker: 'worker-b', claim: 2 },
    ]);
    const firstCalls = server.requests.filter((r) => String(r.body.messages[0]!.content).startsWith('first'));
    expect(firstCalls).toHaveLength(1); // the completed llm step was not run, nor paid for, twice
    // The taking-over worker reads the completed block's output, by position and by name, from the run's events.
    expect(String(server.requests.at(-1)!.body.messages[0]!.content)).toBe('second: one, named one');
    expect(events.filter((e) => e.type === 'CreditsConsumed').map((e) => (e.data as { blockName: string }).blockName)).toEqual(['first', 'second']);
  });
});
