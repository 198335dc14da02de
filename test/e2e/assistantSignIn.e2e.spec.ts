import { decodeProtectedHeader } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLoginCode } from '../../src/commands/loginCodeCommands.ts';
import { addMember, createOrganization } from '../../src/commands/organizationCommands.ts';
import { startApiProcess, startEmbeddedOAuthService, type EmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { REDIRECT_URL, authorizeByHand } from '../support/oauthAssistant.ts';
import { runCli } from '../support/runProcess.ts';
import { freePort, testPrincipal } from '../support/testRuntime.ts';

/**
 * One service, two API processes behind one public URL (the first's), sharing one database: what an
 * assistant signed in on one is, the other knows; a restart forgets nothing.
 */
describe('an assistant stays signed in: on a second API process, across a restart, past its access token, across a key rotation', () => {
  let service: EmbeddedOAuthService;
  let second: Awaited<ReturnType<typeof startApiProcess>> | undefined;
  let secondPort: number;

  async function startSecond() {
    second = await startApiProcess(service, secondPort);
    return second;
  }
  async function stopSecond() {
    await second?.close();
    second = undefined;
  }

  beforeAll(async () => {
    service = await startEmbeddedOAuthService('assistant_sign_in', { alice: 'member', olivia: 'owner' });
    secondPort = await freePort();
    await startSecond();
  });
  afterAll(async () => {
    await stopSecond();
    await service?.close();
  });

  const cli = async (...args: string[]) => {
    const result = await runCli(args, { DATABASE_URL: service.t.database.url, SEQFLOW_MASTER_KEY: service.t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' });
    return { code: result.code, stderr: result.stderr, json: result.code === 0 ? JSON.parse(result.stdout.trim().split('\n').at(-1)!) : undefined };
  };
  const loginCode = async (subject = 'alice') => (await issueLoginCode({ ...service.t.runtime.commands, db: service.t.runtime.db }, { subject }, testPrincipal)).code;
  const ping = async (at: string, token: string) =>
    (await fetch(`${at}/api/v1/mcp/`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) })).status;

  it('signs in on one process, exchanges the code and refreshes on the other, and each process takes the other\'s tokens', async () => {
    const flow = await authorizeByHand(service.origin, await loginCode(), { resource: service.mcpUrl, scope: 'mcp' });
    const issued = await flow.exchange(second!.origin);
    expect(issued.status).toBe(200);
    expect(issued.body.refresh_token).toEqual(expect.any(String));
    for (const at of [service.origin, second!.origin]) expect(await ping(at, issued.body.access_token!), at).toBe(200);

    const refreshed = await flow.refresh(issued.body.refresh_token!, service.origin);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(issued.body.refresh_token);
    for (const at of [service.origin, second!.origin]) expect(await ping(at, refreshed.body.access_token!), at).toBe(200);
    // Rotated at use; within the reuse grace the spent token still works, on the other process too, as
    // another session of the same assistant would use it (after the grace it ends the sign-in: refreshRotation.e2e).
    const sibling = await flow.refresh(issued.body.refresh_token!, second!.origin);
    expect(sibling.status).toBe(200);
    expect(sibling.body.refresh_token).not.toBe(refreshed.body.refresh_token);
  });

  it('keeps the client, its sign-in and its keys across a restart: the same tokens work, the refresh token too, the client needs no new registration', async () => {
    const flow = await authorizeByHand(second!.origin, await loginCode(), { resource: service.mcpUrl, scope: 'mcp' });
    const issued = await flow.exchange(second!.origin);
    expect(issued.status).toBe(200);

    await stopSecond();
    const restarted = await startSecond();
    expect(await ping(restarted.origin, issued.body.access_token!)).toBe(200);
    const refreshed = await flow.refresh(issued.body.refresh_token!, restarted.origin);
    expect(refreshed.status).toBe(200);
    expect(await ping(restarted.origin, refreshed.body.access_token!)).toBe(200);

    // The registered client is still known: its authorization request goes on to the sign-in page.
    const authorize = new URL(`${restarted.origin}/oauth/auth`);
    for (const [key, value] of Object.entries({ client_id: flow.clientId, response_type: 'code', redirect_uri: REDIRECT_URL, scope: 'mcp', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })) authorize.searchParams.set(key, value);
    const answer = await fetch(authorize, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toMatch(/\/oauth\/interaction\//);
  });

  it('keeps a client in use until revoked; an unused registration fades after three hours, and 10,000 of them never make registration wait: the oldest make room', async () => {
    const register = () =>
      fetch(`${service.origin}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'flood', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none' }) });
    const used = await authorizeByHand(service.origin, await loginCode(), { resource: service.mcpUrl, scope: 'mcp' });
    const tokens = await used.exchange();
    expect(tokens.status).toBe(200);
    const unused = ((await (await register()).json()) as { client_id: string }).client_id;
    const expiry = async (clientId: string) =>
      (await sql<{ left: number | null }>`SELECT extract(epoch from expires_at - now())::int AS left FROM oauth_store WHERE model = 'Client' AND client_id = ${clientId}`.execute(service.t.runtime.db)).rows[0]?.left;
    expect(await expiry(used.clientId)).toBeNull();
    expect(await expiry(unused)).toBeGreaterThan(10_000);
    expect(await expiry(unused)).toBeLessThanOrEqual(3 * 3600);

    // A flood from many addresses, registered a minute ago: 10,000 unused clients held. (Before: every new registration was refused for up to a day.)
    await sql`INSERT INTO oauth_store (model, id_hash, payload, client_id, expires_at)
      SELECT 'Client', md5(i::text), '{}'::jsonb, 'flood-' || i, now() + interval '3 hours' - interval '1 minute' - make_interval(secs => i) FROM generate_series(1, 10000) i`.execute(service.t.runtime.db);
    const newcomer = await register();
    expect(newcomer.status).toBe(201);
    const { client_id: newcomerId } = (await newcomer.json()) as { client_id: string };
    expect(await expiry(newcomerId)).toEqual(expect.any(Number));
    // The oldest of the flood made room; the client in use is untouched.
    expect(await expiry('flood-10000')).toBeUndefined();
    expect(await expiry('flood-1')).toEqual(expect.any(Number));
    const held = (await sql<{ n: string }>`SELECT count(*) AS n FROM oauth_store WHERE model = 'Client' AND expires_at IS NOT NULL`.execute(service.t.runtime.db)).rows[0]!.n;
    expect(Number(held)).toBeLessThanOrEqual(10_000);
    expect(await ping(service.origin, tokens.body.access_token!)).toBe(200);
    expect((await used.refresh(tokens.body.refresh_token!)).status).toBe(200);
    await sql`DELETE FROM oauth_store WHERE client_id LIKE 'flood-%'`.execute(service.t.runtime.db);
  });

  it('lists the registered clients and ends one with `seqflow oauth revoke`: its tokens are refused at once; its sign-in and its revocation are events', async () => {
    const flow = await authorizeByHand(service.origin, await loginCode(), { resource: service.mcpUrl, scope: 'mcp' });
    const tokens = await flow.exchange();
    const listed = await cli('oauth', 'clients');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json.clients).toContainEqual({ clientId: flow.clientId, clientName: 'Member Script', redirectUris: [REDIRECT_URL], registeredAt: expect.any(String), signedIn: true, grants: 1, metadataDocument: false, subjects: ['alice'] });
    // An organization's owner sees the assistants its members signed in with, and no other organization's.
    expect((await cli('oauth', 'clients', '--org', 'acme')).json.clients.map((c: { clientId: string }) => c.clientId)).toContain(flow.clientId);
    expect((await cli('oauth', 'clients', '--org', 'nobody-here')).json.clients).toEqual([]);

    expect((await cli('oauth', 'revoke', '--client', flow.clientId)).json).toEqual({ clientId: flow.clientId, revoked: true, recorded: true });
    expect(await ping(service.origin, tokens.body.access_token!)).toBe(401);
    // The client itself is gone: its refresh token cannot even be presented.
    expect((await flow.refresh(tokens.body.refresh_token!)).body.error).toBe('invalid_client');
    expect((await cli('oauth', 'clients')).json.clients.map((c: { clientId: string }) => c.clientId)).not.toContain(flow.clientId);
    const [signedIn, revoked] = await service.t.runtime.eventStore.readStream(`oauthclient-${flow.clientId}`);
    expect(signedIn).toMatchObject({ type: 'OAuthClientSignedIn', data: { clientId: flow.clientId, clientName: 'Member Script', subject: 'alice', resources: [service.mcpUrl] }, metadata: { principal: { kind: 'user', id: 'alice' } } });
    expect(revoked).toMatchObject({ type: 'OAuthClientRevoked', data: { clientId: flow.clientId, clientName: 'Member Script', grantsEnded: 1 }, metadata: { principal: { kind: 'cli' } } });

    // Again: nothing more to record; an unknown client is refused.
    expect((await cli('oauth', 'revoke', '--client', flow.clientId)).json).toEqual({ clientId: flow.clientId, revoked: true, recorded: false });
    const unknown = await cli('oauth', 'revoke', '--client', 'no-such-client');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No registered OAuth client no-such-client');
  });

  it('lets an organization\'s owner list and end its members\' assistants over the REST API, signed in from a browser; a member below admin and another organization\'s owner are refused', async () => {
    const assistant = await authorizeByHand(service.origin, await loginCode('alice'), { resource: service.mcpUrl, scope: 'mcp' });
    const assistantTokens = await assistant.exchange();
    // The owner's own token for the REST API, from the same sign-in page.
    const owner = await (await authorizeByHand(service.origin, await loginCode('olivia'), { resource: service.origin, scope: 'api' })).exchange();
    const member = await (await authorizeByHand(service.origin, await loginCode('alice'), { resource: service.origin, scope: 'api' })).exchange();
    const { id: acme } = await service.t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow();
    const call = (token: string, method: string, path: string) => fetch(`${service.origin}/api/v1/organizations/${acme}/assistants${path}`, { method, headers: { authorization: `Bearer ${token}` } });

    const listed = await call(owner.body.access_token!, 'GET', '');
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { items: { clientId: string; subjects: string[] }[] }).items).toContainEqual(expect.objectContaining({ clientId: assistant.clientId, subjects: ['alice'] }));
    expect((await call(member.body.access_token!, 'GET', '')).status).toBe(403);
    // The owner of another organization is no member of this one.
    await createOrganization(service.t.runtime.commands, { slug: 'globex', name: 'Globex' }, testPrincipal);
    await addMember(service.t.runtime.commands, { organizationSlug: 'globex', userSubject: 'gwen', role: 'owner' }, testPrincipal);
    await service.t.runtime.projections.catchUp();
    const stranger = await (await authorizeByHand(service.origin, await loginCode('gwen'), { resource: service.origin, scope: 'api' })).exchange();
    expect((await call(stranger.body.access_token!, 'GET', '')).status).toBe(403);
    expect((await call(stranger.body.access_token!, 'DELETE', `/${encodeURIComponent(assistant.clientId)}`)).status).toBe(403);
    expect((await call(owner.body.access_token!, 'DELETE', `/${encodeURIComponent('not-a-client')}`)).status).toBe(404);

    const ended = await call(owner.body.access_token!, 'DELETE', `/${encodeURIComponent(assistant.clientId)}`);
    expect([ended.status, await ended.json()]).toEqual([200, { clientId: assistant.clientId, revoked: true, recorded: true }]);
    expect(await ping(service.origin, assistantTokens.body.access_token!)).toBe(401);
    const revoked = (await service.t.runtime.eventStore.readStream(`oauthclient-${assistant.clientId}`)).find((e) => e.type === 'OAuthClientRevoked');
    expect(revoked?.metadata.principal).toMatchObject({ kind: 'user', id: 'olivia' });
    expect((await call(owner.body.access_token!, 'DELETE', `/${encodeURIComponent(assistant.clientId)}`)).status).toBe(404);
  });

  it('stays signed in across `seqflow oauth rotate-keys`: tokens signed before still verify, refreshed ones carry the new key on every process, and the rotation is an event', async () => {
    const flow = await authorizeByHand(service.origin, await loginCode(), { resource: service.mcpUrl, scope: 'mcp' });
    const before = await flow.exchange();
    const oldKid = decodeProtectedHeader(before.body.access_token!).kid;
    for (const at of [service.origin, second!.origin]) expect(await ping(at, before.body.access_token!), at).toBe(200);

    const rotated = await cli('oauth', 'rotate-keys');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.json).toEqual({ kid: expect.any(String), retiredKids: [], signingKeys: 2 });
    expect(rotated.json.kid).not.toBe(oldKid);

    // Each process signs with the new key from its next request to the authorization server.
    const after = await flow.refresh(before.body.refresh_token!, second!.origin);
    expect(after.status).toBe(200);
    expect(decodeProtectedHeader(after.body.access_token!).kid).toBe(rotated.json.kid);
    // Both keys verify, on both processes: the first learns the new key when a token names it.
    for (const at of [service.origin, second!.origin]) {
      expect(await ping(at, before.body.access_token!), at).toBe(200);
      expect(await ping(at, after.body.access_token!), at).toBe(200);
    }
    const jwks = (await (await fetch(`${service.origin}/oauth/jwks`)).json()) as { keys: { kid: string; d?: string }[] };
    expect(jwks.keys.map((key) => key.kid).sort()).toEqual([oldKid, rotated.json.kid].sort());
    expect(jwks.keys.every((key) => key.d === undefined)).toBe(true);

    const [event] = await service.t.runtime.eventStore.readStream('oauthkeys');
    expect(event).toMatchObject({ type: 'OAuthSigningKeyRotated', data: { kid: rotated.json.kid, publicKey: { kty: 'EC', crv: 'P-256' }, retiredKids: [] }, metadata: { principal: { kind: 'cli' } } });
    expect(JSON.stringify(event)).not.toContain('"d"');
  });
});
