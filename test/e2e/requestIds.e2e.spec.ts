import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { organizationStream } from '../../src/domain/organizations/organizationEvents.ts';
import { type JobRunner, createJobRunner } from '../../src/workers/jobRunner.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids: X-Request-Id on every answer, in error bodies and in the logs', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let runner: JobRunner | undefined;

  beforeAll(async () => {
    t = await createTestRuntime('reqid');
    key = await seedProject(t.runtime, { hello: [{ block: { name: 'a', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await runner?.stop();
    await app?.close();
    await t?.close();
  });

  const execute = (headers: Record<string, string> = {}) =>
    fetch(`${base}/seq/acme/web/hello/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ message: 'hi' }) });

  it('makes up a UUID when the caller sends none, and returns it', async () => {
    const answer = await execute();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toMatch(UUID);
  });

  it("keeps the caller's id, on a success and in an error's body", async () => {
    const ok = await execute({ 'x-request-id': 'caller-req-1' });
    expect(ok.headers.get('x-request-id')).toBe('caller-req-1');

    const refused = await fetch(`${base}/seq/acme/web/hello/execute`, { method: 'POST', headers: { authorization: 'Bearer nope', 'x-request-id': 'caller-req-2' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('caller-req-2');
    expect(await refused.json()).toEqual({ detail: { code: 'UNAUTHENTICATED', message: expect.any(String), requestId: 'caller-req-2' } });
  });

  it('replaces an id it will not log as given (spaces, control characters, over 200 characters)', async () => {
    for (const given of ['has space', 'x'.repeat(201)]) {
      const answer = await execute({ 'x-request-id': given });
      expect(answer.headers.get('x-request-id')).toMatch(UUID);
    }
  });

  it('carries the id on answers the router gives before any route runs', async () => {
    const malformed = await fetch(`${base}/seq/acme/web/%E0%A4%A/execute`, { method: 'POST', headers: { 'x-request-id': 'caller-req-3' } });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-request-id')).toBe('caller-req-3');
    expect(((await malformed.json()) as { detail: { code: string; requestId: string } }).detail).toMatchObject({ code: 'URL_INVALID', requestId: 'caller-req-3' });
    const missing = await fetch(`${base}/no-such-route`, { headers: { 'x-request-id': 'caller-req-4' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBe('caller-req-4');
    expect(((await missing.json()) as { detail: { requestId: string } }).detail.requestId).toBe('caller-req-4');
  });

  it('labels the log lines of a request with its id', async () => {
    await execute({ 'x-request-id': 'caller-req-5' });
    const lines = t.logs().split('\n').filter((line) => line.includes('"requestId":"caller-req-5"'));
    expect(lines.length).toBeGreaterThanOrEqual(2); // the request and its answer
  });

  const metadataOf = async (streamId: string) => (await t.runtime.eventStore.readStream(streamId)).map((e) => ({ type: e.type, principal: e.metadata.principal.kind, requestId: e.metadata.requestId }));

  it('stamps the id on every event the request appends', async () => {
    const answer = await execute({ 'x-request-id': 'caller-req-6' });
    const { executionId } = (await answer.json()) as { executionId: string };
    const events = await metadataOf(executionStream(executionId));
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['ExecutionRequested', 'ExecutionCompleted']));
    expect(events.every((e) => e.requestId === 'caller-req-6')).toBe(true);
  });

  it("follows a job into the worker: the runner's events name the request that accepted it", async () => {
    const submitted = await fetch(`${base}/seq/acme/web/hello/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'caller-req-7' },
      body: JSON.stringify({ message: 'hi' }),
    });
    expect(submitted.status).toBe(202);
    const { executionId } = (await submitted.json()) as { executionId: string };
    await t.runtime.projections.start(); // runners claim jobs from the read model
    runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 2000, concurrency: 1, workerId: 'reqid-worker', pollMs: 20 });
    runner.start();
    let events = await metadataOf(executionStream(executionId));
    for (let i = 0; i < 400 && !events.some((e) => e.type === 'ExecutionCompleted'); i++) {
      await new Promise((r) => setTimeout(r, 25));
      events = await metadataOf(executionStream(executionId));
    }
    expect(events).toContainEqual({ type: 'JobClaimed', principal: 'system', requestId: 'caller-req-7' });
    expect(events).toContainEqual({ type: 'ExecutionCompleted', principal: 'system', requestId: 'caller-req-7' });
    expect(events.every((e) => e.requestId === 'caller-req-7')).toBe(true);
  });

  it('stamps the id on the events a command of the request appends (a webhook secret issued on first fetch)', async () => {
    const { id } = await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow();
    const answer = await fetch(`${base}/organizations/${id}/webhooks/secret`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'caller-req-8' } });
    expect(answer.status).toBe(200);
    const issued = (await metadataOf(organizationStream(id))).filter((e) => e.requestId === 'caller-req-8');
    expect(issued.map((e) => e.type)).toEqual(['WebhookSecretIssued']);
  });
});
