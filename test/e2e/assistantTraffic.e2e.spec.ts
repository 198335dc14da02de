import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { issueLoginCode } from '../../src/commands/loginCodeCommands.ts';
import { startApiProcess, startEmbeddedOAuthService, type EmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { Browser, signInAssistant } from '../support/oauthAssistant.ts';
import { freePort, testPrincipal } from '../support/testRuntime.ts';

/**
 * What each assistant sends, request by request, from its public documentation and source:
 * - Claude Code and Cursor run the MCP TypeScript SDK's OAuth client: the 401's `resource_metadata`,
 *   the RFC 8414 path-insertion discovery first, dynamic registration (Claude Code with a loopback
 *   `/callback` on a random port, Cursor with `cursor://anysphere.cursor-mcp/oauth/callback`), PKCE
 *   S256 with `resource` and the challenge's `scope`.
 * - VS Code registers itself (src/vs/base/common/oauth.ts, `fetchDynamicRegistration`) with
 *   `application_type: native`, `client_uri`, the scopes it was offered, grant types filtered by the
 *   server's, and six redirect URIs (vscode.dev's https relays, loopback without a port, and port
 *   33418), then signs in at whatever loopback port it could open.
 * - The Claude desktop app returns to `claude://claude.ai/mcp-auth-callback/sdk`; claude.ai's
 *   connector, from Anthropic's servers, to `https://claude.ai/api/mcp/auth_callback`, and drops the
 *   URL's trailing slash: every request goes to `/api/v1/mcp`, and the token is asked for that resource.
 * Each goes through to a token and tool calls with two API processes behind the public URL, one of
 * them restarted between registration and sign-in.
 */
interface AssistantTraffic {
  name: string;
  registration: (offered: { scope: string; grantTypes: string[] }) => Record<string, unknown>;
  /** The redirect URI it signs in with (one it registered, or a loopback one on another port). */
  signInRedirect: string;
  protocolVersion: string;
  dropsTrailingSlash?: boolean;
}

const assistants: AssistantTraffic[] = [
  {
    name: 'Claude Code',
    registration: () => ({ client_name: 'Claude Code (seqflow)', redirect_uris: ['http://localhost:52714/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    signInRedirect: 'http://localhost:52714/callback',
    protocolVersion: '2025-06-18',
  },
  {
    name: 'Cursor',
    registration: () => ({ client_name: 'Cursor', redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    signInRedirect: 'cursor://anysphere.cursor-mcp/oauth/callback',
    protocolVersion: '2025-06-18',
  },
  {
    name: 'VS Code',
    registration: (offered) => ({
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      grant_types: offered.grantTypes.filter((grant) => ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'].includes(grant)),
      response_types: ['code'],
      redirect_uris: ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://localhost', 'http://127.0.0.1', 'http://localhost:33418', 'http://127.0.0.1:33418'],
      scope: offered.scope,
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }),
    // Port 33418 was taken: VS Code listens on a random port and signs in with it.
    signInRedirect: 'http://127.0.0.1:61022/',
    protocolVersion: '2025-11-25',
  },
  {
    name: 'the Claude desktop app',
    registration: () => ({ client_name: 'Claude', redirect_uris: ['claude://claude.ai/mcp-auth-callback/sdk'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    signInRedirect: 'claude://claude.ai/mcp-auth-callback/sdk',
    protocolVersion: '2025-06-18',
  },
  {
    name: 'claude.ai',
    registration: () => ({ client_name: 'Claude', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    signInRedirect: 'https://claude.ai/api/mcp/auth_callback',
    protocolVersion: '2025-06-18',
    dropsTrailingSlash: true,
  },
];

describe('the assistants people use, request by request: discovery, registration, sign-in, token, tools, refresh', () => {
  let service: EmbeddedOAuthService;
  let second: Awaited<ReturnType<typeof startApiProcess>>;
  let secondPort: number;

  beforeAll(async () => {
    service = await startEmbeddedOAuthService('assistant_traffic', { alice: 'member' });
    secondPort = await freePort();
    second = await startApiProcess(service, secondPort);
  });
  afterAll(async () => {
    await second?.close();
    await service?.close();
  });

  const loginCode = async () => (await issueLoginCode({ ...service.t.runtime.commands, db: service.t.runtime.db }, { subject: 'alice' }, testPrincipal)).code;
  /** The same path on another process: what a load balancer in front of both would do. */
  const on = (origin: string, url: string) => `${origin}${new URL(url).pathname}${new URL(url).search}`;
  const form = (body: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });
  /** One JSON-RPC message over Streamable HTTP, as the clients send it (both accept types, the protocol version once negotiated). */
  const rpc = async (origin: string, token: string | undefined, message: Record<string, unknown>, protocolVersion?: string, path = '/api/v1/mcp/') => {
    const answer = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
    const text = await answer.text();
    return { status: answer.status, headers: answer.headers, body: text ? (JSON.parse(text) as { result?: Record<string, unknown>; error?: unknown }) : undefined };
  };

  it.each(assistants)('$name signs in and works, across a restart and two API processes', async (assistant) => {
    const initialize = { id: 0, method: 'initialize', params: { protocolVersion: assistant.protocolVersion, capabilities: {}, clientInfo: { name: assistant.name, version: '1.0.0' } } };
    // The endpoint as the client has it: claude.ai's connector form drops the trailing slash, in its requests and its resource indicator.
    const path = assistant.dropsTrailingSlash ? '/api/v1/mcp' : '/api/v1/mcp/';
    const endpoint = `${service.origin}${path}`;
    const mcp = (origin: string, token: string | undefined, message: Record<string, unknown>, protocolVersion?: string) => rpc(origin, token, message, protocolVersion, path);

    // Discovery: the challenge, the resource's metadata, the authorization server's (RFC 8414 path insertion first).
    const challenge = await mcp(service.origin, undefined, initialize);
    expect(challenge.status).toBe(401);
    const header = challenge.headers.get('www-authenticate')!;
    const resourceMetadataUrl = /resource_metadata="([^"]+)"/.exec(header)![1]!;
    const scope = /scope="([^"]+)"/.exec(header)![1]!;
    const resource = (await (await fetch(resourceMetadataUrl)).json()) as { resource: string; authorization_servers: string[] };
    expect(resource.resource).toBe(service.mcpUrl);
    const issuer = new URL(resource.authorization_servers[0]!);
    const metadataAnswer = await fetch(`${issuer.origin}/.well-known/oauth-authorization-server${issuer.pathname}`);
    expect(metadataAnswer.status).toBe(200);
    const metadata = (await metadataAnswer.json()) as { issuer: string; registration_endpoint: string; authorization_endpoint: string; token_endpoint: string; code_challenge_methods_supported: string[]; grant_types_supported: string[] };
    expect(metadata.issuer).toBe(issuer.href.replace(/\/$/, ''));
    expect(metadata.code_challenge_methods_supported).toContain('S256');

    // Registration on the second process, which then restarts.
    const registered = await fetch(on(second.origin, metadata.registration_endpoint), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(assistant.registration({ scope, grantTypes: metadata.grant_types_supported })) });
    const client = (await registered.json()) as { client_id: string; error_description?: string };
    expect(registered.status, client.error_description).toBe(201);
    await second.close();
    second = await startApiProcess(service, secondPort);

    // Sign-in on the restarted process, in the member's browser.
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const authorize = new URL(on(second.origin, metadata.authorization_endpoint));
    const params = { response_type: 'code', client_id: client.client_id, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', redirect_uri: assistant.signInRedirect, state, scope, resource: endpoint };
    for (const [key, value] of Object.entries(params)) authorize.searchParams.set(key, value);
    const browser = new Browser();
    const page = await browser.follow(authorize.href);
    expect(page.response.status).toBe(200);
    const action = new URL(/action="([^"]+)"/.exec(await page.response.text())![1]!, second.origin).href;
    const signedIn = await browser.follow(action, { method: 'POST', form: { code: await loginCode() } });
    expect(signedIn.location?.href.startsWith(assistant.signInRedirect), signedIn.location ? signedIn.location.href : `${signedIn.response.status} ${await signedIn.response.text()}`).toBe(true);
    expect(signedIn.location!.searchParams.get('state')).toBe(state);
    const code = signedIn.location!.searchParams.get('code')!;

    // The code exchanged on the first process.
    const exchanged = await fetch(metadata.token_endpoint, form({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: assistant.signInRedirect, client_id: client.client_id, resource: endpoint }));
    const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string; token_type: string; expires_in: number; scope: string };
    expect(exchanged.status).toBe(200);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp', refresh_token: expect.any(String) });

    // The MCP conversation, on the restarted process.
    const initialized = await mcp(second.origin, tokens.access_token, initialize);
    expect(initialized.status).toBe(200);
    expect(initialized.body?.result?.protocolVersion).toBe(assistant.protocolVersion);
    expect((await mcp(second.origin, tokens.access_token, { method: 'notifications/initialized' }, assistant.protocolVersion)).status).toBe(202);
    const listed = await mcp(second.origin, tokens.access_token, { id: 1, method: 'tools/list' }, assistant.protocolVersion);
    expect((listed.body?.result?.tools as { name: string }[]).map((tool) => tool.name)).toContain('list_projects');
    const called = await mcp(second.origin, tokens.access_token, { id: 2, method: 'tools/call', params: { name: 'list_projects', arguments: {} } }, assistant.protocolVersion);
    expect((called.body?.result as CallToolResult | undefined)?.structuredContent).toMatchObject({ projects: [expect.objectContaining({ organization_slug: 'acme', slug: 'web' })] });

    // An hour on, the refresh on the second process; the new token works on the first.
    const refreshed = await fetch(on(second.origin, metadata.token_endpoint), form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, resource: endpoint }));
    const renewed = (await refreshed.json()) as { access_token: string };
    expect(refreshed.status).toBe(200);
    expect((await mcp(service.origin, renewed.access_token, { id: 3, method: 'ping' }, assistant.protocolVersion)).status).toBe(200);
  });
});

describe('an assistant past its access token\'s hour (the SDK\'s own client, as Claude Code and Cursor run it)', () => {
  let service: EmbeddedOAuthService;
  beforeAll(async () => {
    service = await startEmbeddedOAuthService('assistant_hour', { alice: 'member' });
    // As `seqflow serve` does: the read models follow the log, so the tools' answers wait for them.
    await service.t.runtime.projections.start();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await service?.close();
  });

  it('is refused with the challenge once the token expired, refreshes by itself, and goes on: lists projects, builds, tests, publishes, promotes and runs a flow', async () => {
    const { code } = await issueLoginCode({ ...service.t.runtime.commands, db: service.t.runtime.db }, { subject: 'alice' }, testPrincipal);
    const auth = await signInAssistant(service.mcpUrl, code);
    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(service.mcpUrl), { authProvider: auth }));
    const firstToken = auth.stored!.access_token;
    expect(((await client.callTool({ name: 'list_projects', arguments: {} })) as CallToolResult).isError).toBeFalsy();

    // Only Date is moved (and keeps running): an hour and a minute later for the service, its verifier and the SDK alike.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 61 * 60_000);
    const expired = await fetch(service.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${firstToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('invalid_token');

    const call = async <Answer = Record<string, unknown>>(name: string, args: Record<string, unknown>) => {
      const answer = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (answer.isError) throw new Error(`${name}: ${JSON.stringify(answer.content)}`);
      return answer.structuredContent as Answer;
    };
    const { projects } = await call<{ projects: { project_id: string }[] }>('list_projects', {});
    expect(auth.stored!.access_token).not.toBe(firstToken);

    // Found its way without being told an id: the project from list_projects, the rest from the answers.
    const { flow_id } = await call<{ flow_id: string }>('create_flow', { project_id: projects[0]!.project_id, name: 'Echo', slug: 'echo' });
    await call('add_block', { flow_id, name: 'echo', processor_type: 'passthrough' });
    const version = await call<{ version_id: string; number: number }>('publish_version', { flow_id, note: 'first' });
    await call('create_test_case', { flow_id, name: 'says hello', input: { message: 'hello' }, assertions: [{ type: 'contains', value: 'hello' }] });
    expect(await call('run_all_tests', { flow_id, version: version.number })).toMatchObject({ complete: true, totals: { total: 1, passed: 1, failed: 0 } });
    expect(await call('set_production_version', { flow_id, version_id: version.version_id })).toMatchObject({ number: 1 });
    expect(await call('run_flow', { flow_id, input: { message: 'hello' } })).toMatchObject({ flow_run_id: expect.any(String), status: 'completed' });
    await client.close();
  });
});
