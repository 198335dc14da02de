import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { spawnWorker, workerOutput } from '../support/runProcess.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { type ReceiverMode, type SwitchableReceiver, startSwitchableReceiver } from '../support/switchableReceiver.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { logRows, reportFigures } from './faultFigures.ts';
import { signalGroup } from '../support/signalGroup.ts';

/** code → llm → passthrough: a durable event after each block, and a model call a test can hold. */
const steps = [
  { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message };' } },
  { block: { name: 'ask', processor_type: 'llm', prompt: '{{previous_output.text}}' } },
  { block: { name: 'done', processor_type: 'passthrough' } },
];

/**
 * Where the worker dies: the moment is found in the log (or at the receiver) as the worker reaches
 * it, and `kill -9` lands there, whatever the worker had in flight.
 */
interface KillPoint {
  name: string;
  /** What the receiver does until the kill. */
  receiver: ReceiverMode;
  /** The model call is held until the kill. */
  holdModel: boolean;
  reached: (executionId: string) => Promise<boolean>;
}

describe('kill -9 of a worker at each durable step of a job and of its delivery', () => {
  let t: TestRuntime;
  let model: ScriptedModelServer;
  let receiver: SwitchableReceiver;
  let release: () => void = () => undefined;
  let workerEnv: Record<string, string>;
  const figures: Record<string, unknown>[] = [];

  const rows = (executionId: string, type: string) => logRows(t.database.url, `event_type = $1 AND data->>'executionId' = $2`, [type, executionId]);
  const deliveryRows = async (executionId: string, type: string) => {
    const created = await rows(executionId, 'DeliveryCreated');
    if (created.length === 0) return [];
    return logRows(t.database.url, `event_type = $1 AND stream_id = $2`, [type, `delivery-${created[0]!.data.deliveryId as string}`]);
  };

  const points: KillPoint[] = [
    { name: 'job claimed, its model call in flight', receiver: 'answer', holdModel: true, reached: async (id) => (await rows(id, 'JobClaimed')).length > 0 && model.requests.some((r) => JSON.stringify(r.body.messages).includes(id)) },
    { name: 'code block completed, the next block started', receiver: 'answer', holdModel: true, reached: async (id) => (await rows(id, 'ExecutionStepStarted')).some((e) => e.data.blockName === 'ask') },
    { name: 'run completed, its delivery not yet attempted', receiver: 'black-hole', holdModel: false, reached: async (id) => (await rows(id, 'ExecutionCompleted')).length > 0 },
    { name: 'delivery attempt recorded, no byte of the POST sent', receiver: 'black-hole', holdModel: false, reached: async (id) => (await deliveryRows(id, 'DeliveryAttemptStarted')).length > 0 && receiver.swallowed() > 0 },
    { name: 'POST received, its answer not yet sent', receiver: 'hold-answer', holdModel: false, reached: async (id) => receiver.received.some((r) => r.executionId === id) },
  ];

  beforeAll(async () => {
    model = await startScriptedModelServer();
    receiver = await startSwitchableReceiver();
    const env = {
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_JOB_LEASE_MS: '1500',
      SEQFLOW_DELIVERY_LEASE_MS: '1500',
      SEQFLOW_WEBHOOK_TIMEOUT_MS: '60000',
      SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100',
      SEQFLOW_DEFAULT_CREDITS: '1000000',
      SEQFLOW_LLM_MAX_RETRIES: '0',
    };
    t = await createTestRuntime('fault_kill', env);
    workerEnv = { ...env, ...t.database.service.env, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64') };
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'f', name: 'f', steps }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    release();
    await receiver?.close();
    await model?.close();
    await t?.close();
    if (figures.length > 0) reportFigures('kill-9-at-each-step', { points: figures });
  });

  const exited = (worker: ChildProcess) => new Promise((resolve) => (worker.exitCode !== null ? resolve(undefined) : worker.on('exit', resolve)));

  it.each(points.map((point) => [point.name, point] as const))('%s: the job completes once, its completed blocks are not run again, its delivery is delivered under one id', async (_name, point) => {
    let held = Promise.resolve();
    if (point.holdModel) {
      let open: () => void = () => undefined;
      held = new Promise<void>((resolve) => (open = resolve));
      release = open;
    }
    model.respond = () => ({ content: 'answer', heldUntil: held });
    receiver.setMode(point.receiver);

    const doomed = spawnWorker({ ...workerEnv, SEQFLOW_WORKER_ID: `doomed-${randomUUID().slice(0, 8)}` });
    const executionId = randomUUID();
    const project = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow();
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'f' }, project.id);
    await acceptJob(t.runtime.execution, { executionId, ...flow, message: `go ${executionId}`, parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: { url: `${receiver.url}/hook`, events: ['flow.completed', 'flow.failed'] } });

    await until(() => point.reached(executionId), `the worker to reach "${point.name}"`);
    process.kill(-doomed.pid!, 'SIGKILL');
    await exited(doomed);
    const killedAt = Date.now();

    release();
    model.respond = () => ({ content: 'answer' });
    receiver.setMode('answer');
    const survivor = spawnWorker({ ...workerEnv, SEQFLOW_WORKER_ID: `survivor-${randomUUID().slice(0, 8)}` });
    try {
      await until(async () => (await deliveryRows(executionId, 'DeliveryAttemptFinished')).some((e) => e.data.outcome === 'succeeded'), 'the delivery to succeed');
    } catch (error) {
      // What the workers said, and what the log holds of the run and its delivery: the evidence a timeout alone does not give.
      const log = await logRows(t.database.url, `data->>'executionId' = $1 OR stream_id IN (SELECT stream_id FROM seqflow_events WHERE event_type = 'DeliveryCreated' AND data->>'executionId' = $1)`, [executionId]);
      throw new Error(
        `${(error as Error).message}\nthe log: ${JSON.stringify(log.map((e) => [e.event_type, e.stream_id, e.data.outcome ?? null]))}\nthe killed worker said:\n${workerOutput(doomed)}\nthe survivor said:\n${workerOutput(survivor)}`,
        { cause: error },
      );
    } finally {
      signalGroup(survivor, 'SIGKILL');
      await exited(survivor);
    }

    const completed = await rows(executionId, 'ExecutionCompleted');
    const stepsCompleted = (await rows(executionId, 'ExecutionStepCompleted')).map((e) => e.data.blockName as string);
    const posts = receiver.received.filter((r) => r.executionId === executionId);
    expect(completed).toHaveLength(1);
    expect(await rows(executionId, 'ExecutionFailed')).toHaveLength(0);
    // Each block completed once: a block completed before the kill is not run again.
    expect(stepsCompleted.sort()).toEqual(['ask', 'done', 'prep']);
    expect(posts.length).toBeGreaterThanOrEqual(1);
    expect(new Set(posts.map((p) => p.deliveryId)).size).toBe(1);
    figures.push({
      point: point.name,
      claims: (await rows(executionId, 'JobClaimed')).length,
      modelCalls: model.requests.filter((r) => JSON.stringify(r.body.messages).includes(executionId)).length,
      posts: posts.length,
      attempts: (await deliveryRows(executionId, 'DeliveryAttemptStarted')).length,
      recoveredMs: Date.now() - killedAt,
    });
  });
});
