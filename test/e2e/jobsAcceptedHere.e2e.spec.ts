import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobRunner, createJobRunner } from '../../src/workers/jobRunner.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * Jobs accepted in a worker's own process while all its slots are busy wait in that process and
 * take the slots as they free, by id: neither the read model (the projections do not run here, so
 * no claim from it can find them) nor the claim loop's next poll (ten minutes here) stands between
 * a freed slot and the next job.
 */
describe('/jobs accepted in the worker\'s process while its slots are busy', () => {
  let model: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let runner: JobRunner;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));

  beforeAll(async () => {
    model = await startScriptedModelServer();
    t = await createTestRuntime('jobs_here', { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    key = await seedProject(t.runtime, { say: [{ block: { name: 'say', processor_type: 'llm', prompt: '{{message}}' } }] });
    // The flow and the key reach the read models once; after that the projections stay stopped.
    await t.runtime.projections.catchUp();
    runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 5000, concurrency: 1, workerId: 'one-slot', pollMs: 600_000, accepted: t.runtime.execution.updates.onJobAccepted });
    runner.start();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    release();
    await runner?.stop();
    await app?.close();
    await t?.close();
    await model?.close();
  });

  it('runs each one in turn as the slot frees, in the order they were accepted', async () => {
    // The first job holds the only slot inside its model call until the other four are accepted.
    model.respond = (request) => ({ content: `done: ${request.body.messages.at(-1)!.content as string}`, ...(request.body.messages.at(-1)!.content === 'job 0' ? { heldUntil: held } : {}) });
    const submit = async (message: string) => {
      const response = await fetch(`${base}/seq/acme/web/say/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
      expect(response.status).toBe(202);
      return ((await response.json()) as { executionId: string }).executionId;
    };
    const first = await submit('job 0');
    await until(() => model.requests.length === 1, 'the first job to reach the model');
    const waiting: string[] = [];
    for (let i = 1; i <= 4; i++) waiting.push(await submit(`job ${i}`));
    release();

    const ended = async (executionId: string) => (await t.runtime.eventStore.readStream(`execution-${executionId}`)).some((e) => e.type === 'ExecutionCompleted');
    await until(async () => (await Promise.all([first, ...waiting].map(ended))).every(Boolean), 'every accepted job to complete');
    expect(model.requests.map((r) => r.body.messages.at(-1)!.content)).toEqual(['job 0', 'job 1', 'job 2', 'job 3', 'job 4']);
    // Nothing of them reached the read model a claim could have been made from.
    const rows = await t.runtime.db.selectFrom('jobs').select('execution_id').where('execution_id', 'in', [first, ...waiting]).execute();
    expect(rows).toEqual([]);
  });

  it('starts each one from the request this process wrote, without reading its stream back; one cancelled meanwhile is found so in the log', async () => {
    const engine = t.runtime.execution;
    const readStream = engine.eventStore.readStream;
    const reads: string[] = [];
    engine.eventStore.readStream = (streamId, options) => (reads.push(streamId), readStream.call(engine.eventStore, streamId, options));
    let hold!: () => void;
    const holding = new Promise<void>((r) => (hold = r));
    const readsWhenAsked = new Map<string, number>();
    try {
      const submit = async (message: string) => {
        const response = await fetch(`${base}/seq/acme/web/say/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
        return ((await response.json()) as { executionId: string }).executionId;
      };
      const ids: Record<string, string> = {};
      // What the runner had read of a job's stream when its model call came.
      model.respond = (request) => {
        const message = request.body.messages.at(-1)!.content as string;
        readsWhenAsked.set(message, reads.filter((streamId) => streamId === `execution-${ids[message]}`).length);
        return { content: 'done', ...(message === 'holder' ? { heldUntil: holding } : {}) };
      };
      ids.holder = await submit('holder');
      await until(() => readsWhenAsked.has('holder'), 'the first job to reach the model');
      ids.cancelled = await submit('cancelled');
      ids.next = await submit('next');
      const cancel = await fetch(`${base}/seq/acme/web/say/jobs/${ids.cancelled}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
      expect(cancel.status).toBe(200);
      hold();
      await until(() => readsWhenAsked.has('next'), 'the last job to reach the model');

      expect(readsWhenAsked.get('holder')).toBe(0);
      expect(readsWhenAsked.get('next')).toBe(0);
      // The cancelled job's claim met the cancel in its stream: not run, and no claim recorded after its end.
      expect(readsWhenAsked.has('cancelled')).toBe(false);
      expect((await readStream.call(engine.eventStore, `execution-${ids.cancelled}`)).map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionFailed']);
    } finally {
      hold();
      engine.eventStore.readStream = readStream;
    }
  });
});
