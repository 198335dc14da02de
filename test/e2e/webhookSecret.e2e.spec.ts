import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { addMember, createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { rotateWebhookSecret, signingSecrets } from '../../src/commands/webhookSecretCommands.ts';
import { allEventText } from '../support/testDatabase.ts';
import { createTestRuntime, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const ISSUER = 'https://auth.seqflow.test/';
const AUDIENCE = 'seqflow';

describe('webhook signing secret endpoints (API keys and OAuth JWTs)', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let jwks: Server;
  let base: string;
  let orgId: string;
  let otherOrgId: string;
  let apiKey: string;
  let sign: (claims: { sub?: string; aud?: string; iss?: string; expiresIn?: string }) => Promise<string>;
  let signWithStrangerKey: (sub: string) => Promise<string>;
  let hostile: Record<string, string>;

  const call = async (method: string, path: string, token?: string) => {
    const response = await fetch(`${base}/organizations/${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { detail: { code: string } } };
  };

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const stranger = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', () => r()));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as { port: number }).port}/jwks.json`;
    sign = ({ sub, aud = AUDIENCE, iss = ISSUER, expiresIn = '5m' }) => {
      const jwt = new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(iss).setAudience(aud).setIssuedAt().setExpirationTime(expiresIn);
      return (sub ? jwt.setSubject(sub) : jwt).sign(privateKey);
    };
    signWithStrangerKey = (sub) => new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject(sub).setExpirationTime('5m').sign(stranger.privateKey);
    const claims = <T extends SignJWT | UnsecuredJWT>(jwt: T): T => jwt.setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('alice').setIssuedAt() as T;
    hostile = {
      'alg none': claims(new UnsecuredJWT({})).setExpirationTime('5m').encode(),
      // The classic confusion: the issuer's public key used as an HMAC secret.
      'HS256 keyed with the public key': await claims(new SignJWT({})).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).setExpirationTime('5m').sign(new TextEncoder().encode(await exportSPKI(publicKey))),
      'a kid not in the JWKS': await claims(new SignJWT({})).setProtectedHeader({ alg: 'RS256', kid: 'k2' }).setExpirationTime('5m').sign(stranger.privateKey),
      'no exp': await claims(new SignJWT({})).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey),
    };

    t = await createTestRuntime('webhook_secret', { OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS_URL: jwksUrl, SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_SECRET_GRACE_SECONDS: '2' });
    const deps = t.runtime.commands;
    orgId = (await createOrganization(deps, { slug: 'acme', name: 'Acme' }, testPrincipal)).id;
    otherOrgId = (await createOrganization(deps, { slug: 'other', name: 'Other' }, testPrincipal)).id;
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'alice', role: 'owner' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'adam', role: 'admin' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'bob', role: 'member' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    apiKey = (await createApiKey(deps, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await new Promise<void>((r) => (jwks ? jwks.close(() => r()) : r()));
  });

  it('creates the secret on first fetch and shows only its preview, to any member (API key or JWT)', async () => {
    const first = await call('GET', `${orgId}/webhooks/secret`, apiKey);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ secretPreview: expect.stringMatching(/^whsec_.{4}••••••••$/), version: 1, createdAt: expect.any(String), rotatedAt: null, graceUntil: null });
    const again = await call('GET', `${orgId}/webhooks/secret`, await sign({ sub: 'bob' }));
    expect(again.body).toEqual(first.body);
  });

  it('lets only an admin or owner rotate: a member, an API key and a stranger get 403', async () => {
    for (const token of [apiKey, await sign({ sub: 'bob' }), await sign({ sub: 'mallory' })]) {
      const refused = await call('POST', `${orgId}/webhooks/secret/rotate`, token);
      expect([refused.status, refused.body.detail.code]).toEqual([403, 'FORBIDDEN']);
    }
    const rotated = await call('POST', `${orgId}/webhooks/secret/rotate`, await sign({ sub: 'adam' }));
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ newSecret: expect.stringMatching(/^whsec_/), version: 2, rotatedAt: expect.any(String), graceUntil: expect.any(String) });
    expect(rotated.body.secretPreview).toBe(`${(rotated.body.newSecret as string).slice(0, 10)}••••••••`);
    expect(await allEventText(t.database.url)).not.toContain(rotated.body.newSecret as string);

    // During the grace window deliveries sign with both; after it, with the new one only.
    const during = await signingSecrets(t.runtime.commands, orgId, t.runtime.masterKey, testPrincipal);
    expect(during).toEqual({ current: rotated.body.newSecret, previous: expect.stringMatching(/^whsec_/), versions: [2, 1] });
    // Past the grace window (the service's clock moved on, not the test's wall clock).
    const realNow = t.runtime.commands.now;
    t.runtime.commands.now = () => new Date(Date.parse(rotated.body.graceUntil as string) + 1000);
    try {
      expect(await signingSecrets(t.runtime.commands, orgId, t.runtime.masterKey, testPrincipal)).toEqual({ current: rotated.body.newSecret, previous: null, versions: [2] });
      expect((await call('GET', `${orgId}/webhooks/secret`, apiKey)).body).toMatchObject({ version: 2, graceUntil: null });
    } finally {
      t.runtime.commands.now = realNow;
    }
  });

  it('lets exactly one of two concurrent rotations win (both read the same revision; the second append is refused)', async () => {
    // Both rotations read the organization before either appends: a barrier on the real store's reads.
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((r) => (release = r));
    const racingStore = {
      ...t.runtime.eventStore,
      async readStream(streamId: string) {
        const events = await t.runtime.eventStore.readStream(streamId);
        if (++arrived === 2) release();
        await barrier;
        return events;
      },
    };
    const deps = { ...t.runtime.commands, eventStore: racingStore };
    const outcomes = await Promise.allSettled([
      rotateWebhookSecret(deps, orgId, t.runtime.masterKey, 60, testPrincipal),
      rotateWebhookSecret(deps, orgId, t.runtime.masterKey, 60, testPrincipal),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'CONFLICT' } });
    const winner = (outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ newSecret: string }>).value;
    expect((await signingSecrets(t.runtime.commands, orgId, t.runtime.masterKey, testPrincipal))!.current).toBe(winner.newSecret);
  });

  it('answers 401 for missing or invalid credentials, 404 for an unknown organization, 403 for another organization', async () => {
    expect((await call('GET', `${orgId}/webhooks/secret`)).status).toBe(401);
    expect((await call('GET', `${orgId}/webhooks/secret`, 'not-a-token')).status).toBe(401);
    expect((await call('GET', `${orgId}/webhooks/secret`, await signWithStrangerKey('alice'))).status).toBe(401);
    expect((await call('GET', `${orgId}/webhooks/secret`, await sign({ sub: 'alice', aud: 'someone-else' }))).status).toBe(401);
    expect((await call('GET', `${orgId}/webhooks/secret`, await sign({ sub: 'alice', iss: 'https://evil.test/' }))).status).toBe(401);
    expect((await call('GET', `${orgId}/webhooks/secret`, await sign({ sub: 'alice', expiresIn: '-1m' }))).status).toBe(401);
    expect((await call('GET', `${orgId}/webhooks/secret`, await sign({}))).status).toBe(401);
    const unknown = await call('GET', '00000000-0000-4000-8000-000000000000/webhooks/secret', apiKey);
    expect([unknown.status, unknown.body.detail.code]).toEqual([404, 'ORGANIZATION_NOT_FOUND']);
    expect((await call('GET', `${otherOrgId}/webhooks/secret`, apiKey)).status).toBe(403);
    expect((await call('GET', `${otherOrgId}/webhooks/secret`, await sign({ sub: 'alice' }))).status).toBe(403);
  });

  it.each(['alg none', 'HS256 keyed with the public key', 'a kid not in the JWKS', 'no exp'])('refuses a token with %s (401), though its subject is an owner', async (kind) => {
    const refused = await call('GET', `${orgId}/webhooks/secret`, hostile[kind]);
    expect([refused.status, refused.body.detail.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])('a subject named %s is a stranger to every organization (403), not a member', async (sub) => {
    const token = await sign({ sub });
    for (const [method, path] of [['GET', 'webhooks/secret'], ['GET', 'webhooks/deliveries'], ['POST', 'webhooks/secret/rotate']] as const) {
      const refused = await call(method, `${orgId}/${path}`, token);
      expect([refused.status, refused.body.detail.code]).toEqual([403, 'FORBIDDEN']);
    }
  });
});
