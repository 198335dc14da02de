import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLoginCode } from '../../src/commands/loginCodeCommands.ts';
import { AssistantAuth, Browser, REDIRECT_URL, signInAssistant } from '../support/oauthAssistant.ts';
import { startEmbeddedOAuthService, type EmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

describe('the embedded OAuth server: an assistant signs in through the SDK\'s own OAuth flow', () => {
  let service: EmbeddedOAuthService;
  let t: TestRuntime;
  let mcpUrl: string;
  let origin: string;

  beforeAll(async () => {
    service = await startEmbeddedOAuthService('mcp_oauth', { alice: 'member' });
    ({ t, mcpUrl, origin } = service);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('refuses a redirect URI with a user name or password: the host it shows is not where the browser goes', async () => {
    const registered = await fetch(`${origin}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'sneaky', redirect_uris: ['http://trusted.example:x@127.0.0.1:4444/callback'], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(400);
    expect(await registered.json()).toEqual({ error: 'invalid_redirect_uri', error_description: 'redirect_uris must not carry a user name or password' });
  });

  it('registers the client, signs the member in with a one-time code, and lists the tools with a token for the MCP resource', async () => {
    const auth = new AssistantAuth();
    const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth });
    await expect(new Client({ name: 'test-assistant', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    // The SDK discovered the metadata, registered itself and asked to send the member to the sign-in page.
    expect(auth.client?.client_id).toEqual(expect.any(String));
    expect(auth.authorizationUrl?.origin).toBe(origin);
    expect(auth.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.authorizationUrl?.searchParams.get('resource')).toBe(mcpUrl);

    const browser = new Browser();
    const page = await browser.follow(auth.authorizationUrl!.href);
    expect(page.response.status).toBe(200);
    const html = await page.response.text();
    expect(html).toContain('<strong class="client-name">Test Assistant</strong> (its own name for itself) asks to build, publish and test flows');
    // Not the name alone (MCP 2025-11-25): where the sign-in returns, and where the client was registered.
    expect(html).toContain(`returns to <strong class="returns-to">${new URL(REDIRECT_URL).protocol}//${new URL(REDIRECT_URL).host}</strong>`);
    expect(html).toContain('<li class="registered-here">registered here</li>');
    expect(html).toContain('It returns to a program on this computer.');
    // Never shown inside another site's frame.
    expect(page.response.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(page.response.headers.get('x-frame-options')).toBe('DENY');
    const action = new URL(/action="([^"]+)"/.exec(html)![1]!, origin).href;

    // A wrong code, then a right one; the right one works once.
    const wrong = await browser.follow(action, { method: 'POST', form: { code: 'AAAAA-AAAAA' } });
    expect(wrong.response.status).toBe(401);
    expect(await wrong.response.text()).toContain('unknown, used or expired');
    const { code } = await issueLoginCode({ ...t.runtime.commands, db: t.runtime.db }, { subject: 'alice' }, testPrincipal);
    const signedIn = await browser.follow(action, { method: 'POST', form: { code } });
    if (!signedIn.location) throw new Error(`${signedIn.response.status} ${await signedIn.response.text()}`);
    expect(signedIn.location.origin + signedIn.location.pathname).toBe(REDIRECT_URL);
    const authorizationCode = signedIn.location.searchParams.get("code");
    if (!authorizationCode) throw new Error(signedIn.location.href);
    expect(authorizationCode).toEqual(expect.any(String));

    await first.finishAuth(authorizationCode);
    const claims = decodeJwt(auth.stored!.access_token);
    expect(claims).toMatchObject({ iss: `${origin}/oauth`, aud: mcpUrl, sub: 'alice', client_id: auth.client!.client_id, scope: 'mcp' });

    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('hydrate_project');
    await client.close();

    // Asking for `mcp` only, as the SDK does, the assistant still gets a refresh token: it stays signed in past the hour.
    expect(auth.stored!.refresh_token).toEqual(expect.any(String));
    // Keys and sign-in state are in the database, encrypted with the master key; no token is stored as it was issued.
    const keys = (await sql<{ kind: string; secret: string }>`SELECT kind, secret::text AS secret FROM oauth_keys`.execute(t.runtime.db)).rows;
    expect(keys.map((key) => key.kind).sort()).toEqual(['cookie', 'signing']);
    for (const key of keys) expect(Object.keys(JSON.parse(key.secret) as object).sort()).toEqual(['ciphertext', 'iv', 'tag']);
    const stored = JSON.stringify((await sql`SELECT * FROM oauth_store`.execute(t.runtime.db)).rows);
    expect(stored).not.toContain(auth.stored!.refresh_token!);
    expect(stored).not.toContain(authorizationCode);
    expect(stored).not.toContain('alice');
    // A used code is refused the second time.
    const otherBrowser = new Browser();
    const again = await otherBrowser.follow(auth.authorizationUrl!.href);
    const reuse = await otherBrowser.request(new URL(/action="([^"]+)"/.exec(await again.response.text())![1]!, origin).href, { method: 'POST', form: { code } });
    expect(reuse.status).toBe(401);
    expect(await reuse.text()).toContain('unknown, used or expired');
  });

  it('signs an assistant in to the read-only endpoint through the SDK: the page says read only, the token is scoped mcp:read, the tools only read', async () => {
    const readOnlyUrl = `${origin}/api/v1/mcp/readonly`;
    const auth = new AssistantAuth();
    await new Client({ name: 'test-assistant', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(readOnlyUrl), { authProvider: auth })).catch(() => undefined);
    expect(auth.authorizationUrl?.searchParams.get('resource')).toBe(readOnlyUrl);
    expect(auth.authorizationUrl?.searchParams.get('scope')).toBe('mcp:read');
    const html = await (await new Browser().follow(auth.authorizationUrl!.href)).response.text();
    expect(html).toContain('asks <strong class="read-only">to read</strong>');

    const { code } = await issueLoginCode({ ...t.runtime.commands, db: t.runtime.db }, { subject: 'alice' }, testPrincipal);
    const signedIn = await signInAssistant(readOnlyUrl, code);
    expect(decodeJwt(signedIn.stored!.access_token)).toMatchObject({ aud: readOnlyUrl, sub: 'alice', scope: 'mcp:read' });
    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(readOnlyUrl), { authProvider: signedIn }));
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('hydrate_project');
    expect(names).not.toContain('create_flow');
    await client.close();
    // Its token does not open the full endpoint.
    const full = await fetch(mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${signedIn.stored!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(full.status).toBe(401);
  });

  it('names the embedded issuer and its scope in the protected-resource metadata', async () => {
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/api/v1/mcp/`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: mcpUrl, authorization_servers: [`${origin}/oauth`], scopes_supported: ['mcp'] });
    const discovery = (await (await fetch(`${origin}/oauth/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({ issuer: `${origin}/oauth`, code_challenge_methods_supported: ['S256'], registration_endpoint: `${origin}/oauth/reg` });
    // Every place RFC 8414 and OpenID discovery put it for an issuer with a path: clients stop at their first guess.
    for (const path of ['/.well-known/oauth-authorization-server/oauth', '/.well-known/openid-configuration/oauth', '/oauth/.well-known/oauth-authorization-server']) {
      const answer = await fetch(`${origin}${path}`);
      expect(answer.status, path).toBe(200);
      expect(await answer.json(), path).toEqual(discovery);
    }
  });

  it('names the scope to ask for in the 401 challenge', async () => {
    const challenge = (await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).headers.get('www-authenticate');
    expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+", scope="mcp"$/);
  });

  it('limits wrong codes per address, never correct ones: one office behind a NAT signs in all day', async () => {
    const code = async () => (await issueLoginCode({ ...t.runtime.commands, db: t.runtime.db }, { subject: 'alice' }, testPrincipal)).code;
    for (let i = 0; i < 12; i++) expect((await signInAssistant(mcpUrl, await code())).stored?.access_token).toEqual(expect.any(String));

    const auth = new AssistantAuth();
    await new Client({ name: 'guesser', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth })).catch(() => undefined);
    const browser = new Browser();
    const page = await browser.follow(auth.authorizationUrl!.href);
    const action = new URL(/action="([^"]+)"/.exec(await page.response.text())![1]!, origin).href;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await browser.follow(action, { method: 'POST', form: { code: 'AAAAA-AAAAA' } })).response.status);
    // At most 10 wrong codes a minute (the first test of this file tried some already), then 429.
    const refused = statuses.indexOf(429);
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(10);
    expect(statuses.slice(0, refused).every((status) => status === 401)).toBe(true);
    // Locked out for guessing: a correct code waits for the minute too.
    expect((await browser.follow(action, { method: 'POST', form: { code: await code() } })).response.status).toBe(429);
  });

  it('limits anonymous client registrations from one address to 20 a minute', async () => {
    const discovery = (await (await fetch(`${origin}/oauth/.well-known/openid-configuration`)).json()) as { registration_endpoint: string };
    const register = () =>
      fetch(discovery.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'flood', redirect_uris: [REDIRECT_URL], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await register()).status);
    // The other tests of this file registered a few clients already, within the same minute.
    const refused = statuses.indexOf(429);
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(statuses.slice(0, refused).every((status) => status === 201)).toBe(true);
    const answer = await register();
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await answer.json()).toMatchObject({ error: 'rate_limited' });
  });

  it('issues sign-in codes only to members', async () => {
    await expect(issueLoginCode({ ...t.runtime.commands, db: t.runtime.db }, { subject: 'stranger' }, testPrincipal)).rejects.toMatchObject({ code: 'USER_NOT_MEMBER' });
  });
});
