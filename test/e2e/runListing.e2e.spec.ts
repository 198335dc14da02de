import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

interface Listing {
  items: { executionId: string; status: string; mode?: string; result?: unknown; failureReason?: string; errorCode?: string }[];
  nextCursor: string | null;
  detail?: { code: string };
}

describe("listing a flow's jobs and runs, and cancelling a job, over HTTP", () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let otherKey: string;
  const jobs: string[] = []; // oldest first
  let syncRun: string;

  const call = async <T = Listing>(method: string, path: string, body?: unknown, apiKey = key) => {
    const answer = await fetch(`${base}/seq/acme/web/${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: (await answer.json()) as T };
  };
  const allPages = async (path: string, limit: number) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const page: { status: number; body: Listing } = await call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(limit);
      seen.push(...page.body.items.map((i) => i.executionId));
      cursor = page.body.nextCursor;
      if (!cursor) return seen;
    }
    throw new Error('the listing never ended');
  };

  beforeAll(async () => {
    t = await createTestRuntime('listing');
    key = await seedProject(t.runtime, { hello: [{ block: { name: 'a', processor_type: 'passthrough' } }] });
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'other', name: 'Other' }, testPrincipal);
    otherKey = (await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'other', environment: 'test' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
    // No job runner here: the jobs stay `started` until cancelled.
    for (let i = 0; i < 5; i++) jobs.push((await call<{ executionId: string }>('POST', 'hello/jobs', { message: `job ${i}` })).body.executionId);
    syncRun = (await call<{ executionId: string }>('POST', 'hello/execute', { message: 'now' })).body.executionId;
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('pages through the jobs newest first, each once, without results', async () => {
    expect(await allPages('hello/jobs', 2)).toEqual([...jobs].reverse());
    const first = await call('GET', 'hello/jobs?limit=1');
    expect(first.body.items[0]).toMatchObject({ executionId: jobs[4], status: 'started' });
    expect(first.body.items[0]).not.toHaveProperty('result');
  });

  it('lists every run of the flow, the sync one included, and filters by mode', async () => {
    expect(await allPages('hello/runs', 4)).toEqual([syncRun, ...[...jobs].reverse()]);
    const sync = await call('GET', 'hello/runs?mode=sync');
    expect(sync.body.items.map((r) => [r.executionId, r.mode, r.status])).toEqual([[syncRun, 'sync', 'completed']]);
  });

  it('filters by time: from is inclusive, to exclusive', async () => {
    expect((await call('GET', `hello/jobs?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.items).toEqual([]);
    expect((await allPages(`hello/jobs?to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, 10)).length).toBe(5);
  });

  it('refuses a bad filter, limit or cursor with VALIDATION_FAILED', async () => {
    for (const query of ['status=bogus', 'limit=0', 'limit=101', 'from=yesterday', 'cursor=not-ours', 'colour=blue']) {
      const answer = await call('GET', `hello/jobs?${query}`);
      expect([query, answer.status, answer.body.detail?.code]).toEqual([query, 422, 'VALIDATION_FAILED']);
    }
  });

  it('cancels a job that has not finished: failed with reason cancelled, an event naming the key and the request', async () => {
    const cancelled = await call<Record<string, unknown>>('POST', `hello/jobs/${jobs[0]}/cancel`, { reason: 'no longer needed' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ executionId: jobs[0], status: 'failed', failureReason: 'cancelled', errorCode: 'CANCELLED', errorMessage: expect.stringMatching(/^cancelled by API key .+: no longer needed$/) });
    const failed = (await t.runtime.eventStore.readStream(executionStream(jobs[0]!))).at(-1)!;
    expect(failed.type).toBe('ExecutionFailed');
    expect(failed.metadata.principal.kind).toBe('apiKey');
    expect(failed.metadata.requestId).toEqual(expect.any(String));

    await t.runtime.projections.catchUp();
    expect((await call('GET', 'hello/jobs?status=failed')).body.items.map((j) => [j.executionId, j.failureReason])).toEqual([[jobs[0], 'cancelled']]);
    expect((await call('GET', 'hello/jobs?status=started,running')).body.items).toHaveLength(4);
  });

  it('refuses to cancel twice (409), a run that is not a job of the flow (404), or with another project\'s key (404)', async () => {
    await call('POST', `hello/jobs/${jobs[1]}/cancel`);
    expect((await call('POST', `hello/jobs/${jobs[1]}/cancel`)).body.detail?.code).toBe('CONFLICT');
    const notAJob = await call('POST', `hello/jobs/${syncRun}/cancel`);
    expect([notAJob.status, notAJob.body.detail?.code]).toEqual([404, 'EXECUTION_NOT_FOUND']);
    const unknown = await call('POST', 'hello/jobs/00000000-0000-4000-8000-000000000000/cancel');
    expect([unknown.status, unknown.body.detail?.code]).toEqual([404, 'EXECUTION_NOT_FOUND']);
    const foreign = await call('POST', `hello/jobs/${jobs[2]}/cancel`, undefined, otherKey);
    expect(foreign.status).toBe(404);
    expect((await call<{ status: string }>('GET', `hello/jobs/${jobs[2]}`)).body.status).toBe('started');
  });

  it('never answers a poll with a job older than its own log: a row still running while the run has ended reads as ended', async () => {
    const claimed = jobs[3]!;
    await handleCommand(t.runtime.commands, executionStream(claimed), execution, { type: 'Record', event: { type: 'JobClaimed', data: { executionId: claimed, worker: 'w', claim: 1 } } }, testPrincipal);
    await t.runtime.projections.catchUp();
    expect((await t.runtime.db.selectFrom('jobs').select('status').where('execution_id', '=', claimed).executeTakeFirstOrThrow()).status).toBe('running');
    expect((await call('POST', `hello/jobs/${claimed}/cancel`)).status).toBe(200);
    // The projection has not applied the end: the row still says running, the log says failed.
    const polled = await call<{ status: string; failureReason: string }>('GET', `hello/jobs/${claimed}`);
    expect(polled.body).toMatchObject({ status: 'failed', failureReason: 'cancelled' });
  });
});
