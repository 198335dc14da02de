import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { type JobRunner, createJobRunner } from '../../src/workers/jobRunner.ts';
import { tablesHolding } from '../support/plaintextScan.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

interface Answer {
  status: number;
  body: Record<string, unknown> & { detail?: { code: string; message: string } };
}

/**
 * Issue 60 point 2: a failure's message is the service's own words; what came from outside (here, a
 * code block's thrown text quoting the caller's input) is its detail, sealed under the run's key. The
 * caller still reads the whole text while the run's data is kept; once erased, it is gone from the
 * log, the jobs read model and every answer.
 */
describe('a failure that quotes the caller, erased', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let runner: JobRunner;

  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const answer = await fetch(`${base}/seq/acme/web/${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: (await answer.json()) as Answer['body'] };
  };
  const storedText = async (executionId: string) =>
    (await sql<{ data: string }>`SELECT data::text AS data FROM seqflow_events WHERE stream_id = ${executionStream(executionId)}`.execute(t.runtime.db)).rows.map((r) => r.data).join('\n');
  const traceOf = (executionId: string) => runTrace(t.runtime.eventStore, {}, executionId);

  beforeAll(async () => {
    t = await createTestRuntime('failure-detail');
    key = await seedProject(t.runtime, {
      thrower: [{ block: { name: 'check', processor_type: 'code', code: 'throw new Error("invalid customer " + input.message);' } }],
    });
    await t.runtime.projections.catchUp();
    runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 2000, concurrency: 2, workerId: 'failure-detail', pollMs: 20 });
    runner.start();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await runner?.stop();
    await app?.close();
    await t?.close();
  });

  it('answers the whole text, stores only the service words in plaintext, and after DELETE .../data keeps the thrown text nowhere', async () => {
    const email = `carol-${randomUUID()}@example.com`;
    const failed = await call('POST', 'thrower/execute', { message: email });
    expect(failed.body.detail).toMatchObject({ code: 'CODE_BLOCK_FAILED', message: `code block threw: Error: invalid customer ${email}` });
    const executionId = String((failed.body.detail as unknown as { executionId: string }).executionId);

    const job = await call('POST', 'thrower/jobs', { message: email });
    expect(job.status).toBe(202);
    const jobId = String(job.body.executionId);
    let polled: Answer | undefined;
    await until(async () => {
      await t.runtime.projections.catchUp();
      return (polled = await call('GET', `thrower/jobs/${jobId}`)).body.status === 'failed';
    }, 'the job to fail');
    expect(polled!.body).toMatchObject({ errorCode: 'CODE_BLOCK_FAILED', errorMessage: `code block threw: Error: invalid customer ${email}` });
    await t.runtime.projections.catchUp();

    // At rest: the failure events hold the service's words in plaintext, the thrown text only sealed.
    for (const id of [executionId, jobId]) {
      const text = await storedText(id);
      expect(text).toContain('"message": "code block threw"');
      expect(text).not.toContain(email);
    }
    const events = await t.runtime.eventStore.readStream(executionStream(jobId));
    expect(events.find((e) => e.type === 'ExecutionFailed')).toMatchObject({ data: { message: 'code block threw', detail: `Error: invalid customer ${email}` } });
    expect(events.find((e) => e.type === 'ExecutionStepFailed')).toMatchObject({ data: { message: 'code block threw', detail: `Error: invalid customer ${email}` } });
    expect((await traceOf(jobId)).failure).toMatchObject({ message: 'code block threw', detail: `Error: invalid customer ${email}` });
    // The jobs read model keeps the detail while the run has its key (the poll above read it there or from the log).
    expect(await tablesHolding(t.runtime.db, email)).toEqual(['jobs']);

    for (const id of [executionId, jobId]) expect(await call('DELETE', `thrower/runs/${id}/data`)).toMatchObject({ status: 200, body: { erasedNow: true } });
    await t.runtime.projections.catchUp();

    expect(await tablesHolding(t.runtime.db, email)).toEqual([]);
    expect((await call('GET', `thrower/jobs/${jobId}`)).body).toMatchObject({ status: 'failed', errorCode: 'CODE_BLOCK_FAILED', errorMessage: 'code block threw', dataErasedAt: expect.any(String) });
    const erased = await traceOf(jobId);
    expect(erased.failure).toMatchObject({ code: 'CODE_BLOCK_FAILED', message: 'code block threw', detail: 'erased' });
    expect((erased.steps[0] as { error: unknown }).error).toMatchObject({ message: 'code block threw', detail: 'erased' });
    expect(JSON.stringify(erased)).not.toContain(email);
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  });
});
