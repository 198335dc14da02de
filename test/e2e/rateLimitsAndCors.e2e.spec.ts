import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const APP = 'https://app.example.com';

describe('rate limits per API key and CORS, when configured', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let secondKey: string;

  beforeAll(async () => {
    t = await createTestRuntime('limits', { SEQFLOW_RATE_LIMIT: '3', SEQFLOW_RATE_LIMIT_WINDOW_MS: '600000', SEQFLOW_CORS_ORIGINS: APP });
    key = await seedProject(t.runtime, { hello: [{ block: { name: 'a', processor_type: 'passthrough' } }] });
    secondKey = (await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  const getFlow = (apiKey: string, headers: Record<string, string> = {}) => fetch(`${base}/seq/acme/web/hello`, { headers: { authorization: `Bearer ${apiKey}`, ...headers } });

  it('counts requests per API key and refuses the one over the limit with 429 RATE_LIMITED, Retry-After and RateLimit headers', async () => {
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await getFlow(key);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-limit')).toBe('3');
      remaining.push(answer.headers.get('ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const refused = await getFlow(key, { 'x-request-id': 'limited-1' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toEqual({ detail: { code: 'RATE_LIMITED', message: expect.stringMatching(/3 requests per 600 s; retry in \d+ s/), requestId: 'limited-1' } });

    // Another key of the same project has its own count.
    expect((await getFlow(secondKey)).status).toBe(200);
  });

  it('limits the approvals route too, counted by the client address (the route authenticates the caller itself)', async () => {
    const decide = () => fetch(`${base}/seq/acme/web/hello/runs/00000000-0000-4000-8000-000000000000/approvals/a`, { method: 'POST', headers: { authorization: `Bearer ${secondKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve' }) });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await decide());
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([404, 404, 404]);
    expect(answers[3]!.status).toBe(429);
    expect(await answers[3]!.json()).toMatchObject({ detail: { code: 'RATE_LIMITED', message: expect.stringMatching(/^This client may make 3 requests per 600 s/) } });
  });

  it('answers a preflight from an allowed origin before any API key is checked', async () => {
    const preflight = await fetch(`${base}/seq/acme/web/hello/execute`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('idempotency-key');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('names an allowed origin on answers and exposes the request id; another origin gets no CORS headers', async () => {
    const allowed = await getFlow(secondKey, { origin: APP });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(allowed.headers.get('access-control-expose-headers')).toContain('x-request-id');
    const other = await fetch(`${base}/health`, { headers: { origin: 'https://evil.example.net' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('rate limits and CORS by default', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;

  beforeAll(async () => {
    t = await createTestRuntime('nolimits');
    key = await seedProject(t.runtime, { hello: [{ block: { name: 'a', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('sends no CORS headers and counts nothing', async () => {
    const answer = await fetch(`${base}/seq/acme/web/hello`, { headers: { authorization: `Bearer ${key}`, origin: APP } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
    const preflight = await fetch(`${base}/seq/acme/web/hello/execute`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
