import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLoginCode } from '../../src/commands/loginCodeCommands.ts';
import { authorizeByHand } from '../support/oauthAssistant.ts';
import { startEmbeddedOAuthService, type EmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

describe('the embedded OAuth server\'s tokens: refused once their grant is gone, issued for the REST API too, never for a stranger\'s redirect', () => {
  let service: EmbeddedOAuthService;
  let t: TestRuntime;
  let mcpUrl: string;
  let origin: string;

  beforeAll(async () => {
    service = await startEmbeddedOAuthService('oauth_grants', { alice: 'member', olga: 'admin' });
    ({ t, mcpUrl, origin } = service);
  });
  afterAll(async () => {
    await service?.close();
  });

  const loginCode = async (subject: string) => (await issueLoginCode({ ...t.runtime.commands, db: t.runtime.db }, { subject }, testPrincipal)).code;
  const mcpStatus = async (token: string) =>
    (await fetch(mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) })).status;

  it('refuses the tokens of a code used twice: the second exchange revokes the grant, and the first token with it', async () => {
    const flow = await authorizeByHand(origin, await loginCode('alice'), { resource: mcpUrl, scope: 'mcp' });
    const first = await flow.exchange();
    expect(first.status).toBe(200);
    expect(await mcpStatus(first.body.access_token!)).not.toBe(401);
    const replay = await flow.exchange();
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await mcpStatus(first.body.access_token!)).toBe(401);
  });

  it('takes no DPoP: not advertised, a proof at the token endpoint gets a plain bearer token that works, nothing bound to a key', async () => {
    const discovery = (await (await fetch(`${origin}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
    expect(discovery).not.toHaveProperty('dpop_signing_alg_values_supported');
    const flow = await authorizeByHand(origin, await loginCode('alice'), { resource: mcpUrl, scope: 'mcp' });
    // What a DPoP-capable client sends (RFC 9449 §4): a proof signed by its key, the key in the header.
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const proof = await new SignJWT({ htm: 'POST', htu: `${origin}/oauth/token`, jti: randomUUID() }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) }).setIssuedAt().sign(privateKey);
    const answer = await flow.exchange(undefined, { dpop: proof });
    expect(answer).toMatchObject({ status: 200, body: { token_type: 'Bearer' } });
    expect(decodeJwt(answer.body.access_token!)).not.toHaveProperty('cnf');
    expect(await mcpStatus(answer.body.access_token!)).toBe(200);
  });

  it('refuses the access tokens of a grant revoked through its refresh token', async () => {
    const flow = await authorizeByHand(origin, await loginCode('alice'), { resource: mcpUrl, scope: 'mcp offline_access' });
    const { body } = await flow.exchange();
    expect(body.refresh_token).toEqual(expect.any(String));
    expect(await mcpStatus(body.access_token!)).not.toBe(401);
    expect(await flow.revoke(body.refresh_token!)).toBe(200);
    expect(await mcpStatus(body.access_token!)).toBe(401);
  });

  it('issues tokens for the REST API too: an admin signed in on the default install rotates the webhook secret', async () => {
    const organizationId = (await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow()).id;
    const rotate = (token: string) => fetch(`${origin}/api/v1/organizations/${organizationId}/webhooks/secret/rotate`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const admin = await (await authorizeByHand(origin, await loginCode('olga'), { resource: origin, scope: 'api' })).exchange();
    expect(decodeJwt(admin.body.access_token!)).toMatchObject({ iss: `${origin}/oauth`, aud: origin, sub: 'olga', scope: 'api' });
    const rotated = await rotate(admin.body.access_token!);
    expect(rotated.status).toBe(200);
    expect(await rotated.json()).toMatchObject({ secretPreview: expect.any(String) });
    // A member's token for the API is still a member's: rotation is for admins.
    const member = await (await authorizeByHand(origin, await loginCode('alice'), { resource: origin, scope: 'api' })).exchange();
    expect((await rotate(member.body.access_token!)).status).toBe(403);
    // Each token is for its own audience: the assistant endpoint refuses an API token, the API an assistant's.
    expect(await mcpStatus(admin.body.access_token!)).toBe(401);
    const assistant = await (await authorizeByHand(origin, await loginCode('olga'), { resource: mcpUrl, scope: 'mcp' })).exchange();
    expect((await rotate(assistant.body.access_token!)).status).toBe(401);
  });

  it('refuses plain-http redirect URIs except to the client\'s own machine', async () => {
    const register = (redirect: string) =>
      fetch(`${origin}/oauth/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'web', redirect_uris: [redirect], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
      });
    const refused = await register('http://assistant.example/callback');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringContaining('loopback') });
    expect((await register('https://assistant.example/callback')).status).toBe(201);
    expect((await register('http://localhost:7777/callback')).status).toBe(201);
  });

  it('ignores X-Forwarded-Host and X-Forwarded-Proto unless told a proxy sets them (SEQFLOW_TRUST_PROXY)', async () => {
    const discovery = (await (await fetch(`${origin}/oauth/.well-known/openid-configuration`, { headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } })).json()) as Record<string, string>;
    expect(discovery.authorization_endpoint).toBe(`${origin}/oauth/auth`);
    expect(discovery.token_endpoint).toBe(`${origin}/oauth/token`);
  });
});
