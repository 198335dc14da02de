import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLoginCode } from '../../src/commands/loginCodeCommands.ts';
import { startEmbeddedOAuthService, type EmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { authorizeByHand } from '../support/oauthAssistant.ts';
import { testPrincipal } from '../support/testRuntime.ts';

/**
 * The redirect URIs real assistants register (from their public documentation and source): each
 * signs in through to a token the MCP endpoint accepts.
 */
describe('the redirect URIs of the assistants people use', () => {
  let service: EmbeddedOAuthService;

  beforeAll(async () => {
    service = await startEmbeddedOAuthService('assistant_clients', { alice: 'member' });
  });
  afterAll(async () => {
    await service?.close();
  });

  const loginCode = async () => (await issueLoginCode({ ...service.t.runtime.commands, db: service.t.runtime.db }, { subject: 'alice' }, testPrincipal)).code;
  const ping = async (token: string) =>
    (await fetch(service.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) })).status;

  it.each([
    ['Cursor', 'cursor://anysphere.cursor-mcp/oauth/callback'],
    ['the Claude desktop app', 'claude://claude.ai/mcp-auth-callback/sdk'],
  ])('%s: a private-use scheme is a native app\'s redirect, through to a token', async (_client, redirect) => {
    const flow = await authorizeByHand(service.origin, await loginCode(), { resource: service.mcpUrl, scope: 'mcp', redirectUris: [redirect] });
    expect(flow.returnedTo.href.startsWith(`${redirect}?`)).toBe(true);
    const { status, body } = await flow.exchange();
    expect(status).toBe(200);
    expect(await ping(body.access_token!)).toBe(200);
  });

  it('VS Code: registered at 127.0.0.1:33418, signed in at the random loopback port it fell back to', async () => {
    const flow = await authorizeByHand(service.origin, await loginCode(), { resource: service.mcpUrl, scope: 'mcp', redirectUris: ['http://127.0.0.1:33418/'], redirectUri: 'http://127.0.0.1:51873/' });
    expect(flow.returnedTo.origin).toBe('http://127.0.0.1:51873');
    const { status, body } = await flow.exchange();
    expect(status).toBe(200);
    expect(await ping(body.access_token!)).toBe(200);
  });

  it('still refuses a web client\'s plain-http redirect to another machine, and javascript: anywhere', async () => {
    for (const redirect of ['http://assistant.example/callback', 'javascript:alert(1)']) {
      const answer = await fetch(`${service.origin}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: 'none' }) });
      expect(answer.status, redirect).toBe(400);
      expect(((await answer.json()) as { error: string }).error, redirect).toBe('invalid_redirect_uri');
    }
  });
});
