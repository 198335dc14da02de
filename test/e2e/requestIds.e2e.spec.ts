import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids: X-Request-Id on every answer, in error bodies and in the logs', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;

  beforeAll(async () => {
    t = await createTestRuntime('reqid');
    key = await seedProject(t.runtime, { hello: [{ block: { name: 'a', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
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
});
