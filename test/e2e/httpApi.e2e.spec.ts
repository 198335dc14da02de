import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { allProjections } from '../../src/projections/allProjections.ts';
import { createTestRuntime, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const flowFile = { slug: 'hello', name: 'Hello', steps: [{ block: { name: 'a', processor_type: 'passthrough' } }] };

describe('HTTP API skeleton (real server on loopback)', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let otherProjectKey: string;

  const get = (path: string, authorization?: string) =>
    fetch(`${base}${path}`, { headers: authorization ? { authorization } : {} }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  beforeAll(async () => {
    t = await createTestRuntime('http');
    const deps = t.runtime.commands;
    await createOrganization(deps, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'acme', slug: 'mobile', name: 'Mobile' }, testPrincipal);
    await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'web', file: flowFile, production: true }, testPrincipal);
    await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'mobile', file: { ...flowFile, slug: 'mobile-only' } }, testPrincipal);
    otherProjectKey = (await createApiKey(deps, { organizationSlug: 'acme', projectSlug: 'mobile', environment: 'live' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
    ({ app, base } = await serveApi(t.runtime));
    // Created after the projections started and not waited for: must work at once.
    key = (await createApiKey(deps, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('reports database and event-log reachability and projection lag on /health', async () => {
    const { status, body } = await get('/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', database: { ok: true }, eventLog: { ok: true, kind: 'postgres' }, projections: { maxBehind: expect.any(Number) } });
    expect((body.projections as { detail: { name: string }[] }).detail.map((p) => p.name)).toEqual(allProjections.map((p) => p.name));
  });

  it("names a stalled projection and a restarting task on /health without echoing their errors' text to anyone", async () => {
    await sql`UPDATE projection_checkpoints SET stalled_at_position = 1, stalled_event_type = 'OrganizationCreated', stalled_error = 'relation secret_table: password=hunter2', stalled_since = now() WHERE name = 'runs'`.execute(t.runtime.db);
    const failing = t.runtime.supervisor.supervise('leaky', () => ({ done: Promise.reject(new Error('connect to db.internal:5432 as admin failed')), stop: async () => undefined }));
    try {
      let body: Record<string, unknown> = {};
      for (let i = 0; i < 100 && !JSON.stringify(body).includes('"leaky"'); i++) body = (await get('/health')).body;
      expect(body).toMatchObject({ status: 'degraded' });
      const text = JSON.stringify(body);
      expect(text).toContain('OrganizationCreated');
      expect(text).toContain('"leaky"');
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('db.internal');
    } finally {
      await failing.stop();
      await sql`UPDATE projection_checkpoints SET stalled_at_position = NULL, stalled_event_type = NULL, stalled_error = NULL, stalled_since = NULL WHERE name = 'runs'`.execute(t.runtime.db);
    }
  });

  it('serves a flow to a key of its project, including a key created a moment ago', async () => {
    const { status, body } = await get('/seq/acme/web/hello', `Bearer ${key}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ slug: 'hello', name: 'Hello', productionVersion: { number: 1, blockCount: 1 } });
  });

  it.each([
    ['missing', undefined],
    ['not Bearer', 'Basic dXNlcjpwYXNz'],
    ['malformed key', 'Bearer not-a-key'],
    ['unknown key id', `Bearer sf_live_${'0'.repeat(24)}_${'a'.repeat(64)}`],
  ])('answers 401 UNAUTHENTICATED for a %s key', async (_label, authorization) => {
    const { status, body } = await get('/seq/acme/web/hello', authorization);
    expect(status).toBe(401);
    expect(body).toEqual({ detail: { code: 'UNAUTHENTICATED', message: expect.any(String), requestId: expect.any(String) } });
  });

  it('answers 401 for a known key id with a wrong secret, the same as for an unknown key', async () => {
    const [prefix, env, keyId] = key.split('_');
    const { status, body } = await get('/seq/acme/web/hello', `Bearer ${prefix}_${env}_${keyId}_${'f'.repeat(64)}`);
    expect(status).toBe(401);
    expect((body.detail as { message: string }).message).toBe('Invalid API key');
  });

  it("answers a key of another project with the same 404 as for a flow that does not exist", async () => {
    const foreign = await get('/seq/acme/web/hello', `Bearer ${otherProjectKey}`);
    const missing = await get('/seq/acme/web/no-such-flow', `Bearer ${otherProjectKey}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: { code: 'FLOW_NOT_FOUND', message: "No flow 'hello' in acme/web", requestId: expect.any(String) } });
    expect(missing.status).toBe(404);
    expect((missing.body.detail as { code: string }).code).toBe('FLOW_NOT_FOUND');
  });

  it('accepts a key whose projection has not run yet, from the key\'s own stream', async () => {
    await t.runtime.projections.stop();
    try {
      const fresh = await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal);
      const row = await t.runtime.db.selectFrom('api_keys').select('key_id').where('key_id', '=', fresh.keyId).executeTakeFirst();
      expect(row).toBeUndefined();
      expect((await get('/seq/acme/web/hello', `Bearer ${fresh.key}`)).status).toBe(200);
    } finally {
      await t.runtime.projections.start();
    }
  });

  it('refuses a revoked key from the moment the revocation is written, before the read model knows', async () => {
    const doomed = await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal);
    const created = await t.runtime.projections.waitForPosition(doomed.position).then(() => get('/seq/acme/web/hello', `Bearer ${doomed.key}`));
    expect(created.status).toBe(200);
    await t.runtime.projections.stop();
    try {
      await revokeApiKey(t.runtime.commands, { keyId: doomed.keyId }, testPrincipal);
      const row = await t.runtime.db.selectFrom('api_keys').select('revoked_at').where('key_id', '=', doomed.keyId).executeTakeFirstOrThrow();
      expect(row.revoked_at).toBeNull(); // the read model still says active
      const { status, body } = await get('/seq/acme/web/hello', `Bearer ${doomed.key}`);
      expect(status).toBe(401);
      expect((body.detail as { code: string }).code).toBe('API_KEY_REVOKED');
    } finally {
      await t.runtime.projections.start();
    }
  });

  it('fails a run that needs a model with 503 PROVIDER_NOT_CONFIGURED when no provider is configured', async () => {
    await createOrganization(t.runtime.commands, { slug: 'noprov', name: 'No provider', initialCredits: 1000 }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'noprov', slug: 'web', name: 'Web' }, testPrincipal);
    const llmFlow = { slug: 'ask', name: 'Ask', steps: [{ block: { name: 'ask', processor_type: 'llm', prompt: '{{message}}' } }] };
    await importFlow(t.runtime.commands, { organizationSlug: 'noprov', projectSlug: 'web', file: llmFlow, production: true }, testPrincipal);
    const noprovKey = (await createApiKey(t.runtime.commands, { organizationSlug: 'noprov', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    const response = await fetch(`${base}/seq/noprov/web/ask/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${noprovKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ detail: { code: 'PROVIDER_NOT_CONFIGURED', failureReason: 'error' } });
  });

  it('answers unknown routes in the error shape', async () => {
    const { status, body } = await get('/nowhere');
    expect(status).toBe(404);
    expect(body).toEqual({ detail: { code: 'ROUTE_NOT_FOUND', message: 'No route GET /api/v1/nowhere', requestId: expect.any(String) } });
  });

  it('never logs a key or its secret', async () => {
    await get('/seq/acme/web/hello', `Bearer ${key}`);
    const logs = t.logs();
    expect(logs).toContain('/api/v1/seq/acme/web/hello');
    expect(logs).not.toContain(key.split('_').at(-1));
    expect(logs).not.toContain(otherProjectKey.split('_').at(-1));
  });
});
