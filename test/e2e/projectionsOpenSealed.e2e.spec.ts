import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type JobRunner, createJobRunner } from '../../src/workers/jobRunner.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The projections open a run's sealed data only where they keep it: the jobs read model keeps a
 * job's result, so a job's ExecutionCompleted is opened, and an /execute run's is not (no key look-up,
 * no cipher call, no plaintext in the projections' hands for a run whose result no read model holds).
 */
describe('the projections open sealed data only where they keep it', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let runner: JobRunner;
  // The runs whose keys the projections asked for (they alone open with the keys their process made).
  const askedByProjections: string[] = [];

  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const answer = await fetch(`${base}/seq/acme/web/${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    t = await createTestRuntime('projections-open');
    key = await seedProject(t.runtime, { relay: [{ block: { name: 'relay', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    const keys = t.runtime.runDataKeys;
    const forOpening = keys.forOpening.bind(keys);
    vi.spyOn(keys, 'forOpening').mockImplementation(async (ids, options) => {
      if (options?.madeHere === true) askedByProjections.push(...ids);
      return forOpening(ids, options);
    });
    await t.runtime.projections.start();
    runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 2000, concurrency: 2, workerId: 'worker', pollMs: 20 });
    runner.start();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await runner?.stop();
    await app?.close();
    await t?.close();
  });

  it("opens a job's result for its row, and not an /execute run's", async () => {
    const marker = `pii-${randomUUID()}`;
    const executed = await call('POST', 'relay/execute', { message: `sync ${marker}`, parameters: {} });
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    const accepted = await call('POST', 'relay/jobs', { message: `job ${marker}`, parameters: {} });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const jobId = accepted.body.executionId as string;

    // The job's poll reads its row: its result is there, opened by the jobs projection.
    await expect.poll(async () => (await call('GET', `relay/jobs/${jobId}`)).body.status, { timeout: 30_000, interval: 50 }).toBe('completed');
    expect(JSON.stringify((await call('GET', `relay/jobs/${jobId}`)).body.result)).toContain(`job ${marker}`);
    await t.runtime.projections.waitForPosition(await t.runtime.eventStore.headPosition(), 30_000);

    expect(askedByProjections).toContain(jobId);
    expect(askedByProjections).not.toContain(executed.body.executionId);
    // The /execute run is projected all the same: its runs row is there.
    const run = await t.runtime.db.selectFrom('runs').select(['status']).where('execution_id', '=', executed.body.executionId as string).executeTakeFirst();
    expect(run?.status).toBe('completed');
  });
});
