import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { findOrganizationId } from '../../src/commands/organizationCommands.ts';
import { listSecrets, setSecret } from '../../src/commands/secretCommands.ts';
import { organizationStream } from '../../src/domain/organizations/organizationEvents.ts';
import { decryptSecret } from '../../src/security/secretBox.ts';
import { type OAuthMcpServer, startOAuthMcpServer } from '../support/oauthMcpServer.ts';
import { tablesHoldingAny } from '../support/plaintextScan.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';

/**
 * MCP server tools on stored OAuth tokens (issue 61 point 1): the organization's secret holds the
 * client and its tokens; the MCP SDK's client sends the access token, and when the server (the
 * SDK's own authorization server and bearer middleware) refuses an expired one, refreshes it with
 * the refresh grant and stores the rotated tokens as the secret's next version. Tokens are never
 * recorded in plaintext; tokens that can no longer be refreshed fail the step saying so.
 */
describe('mcp server tools on stored OAuth tokens', () => {
  let server: OAuthMcpServer;
  let service: SeededService;
  let organizationId: string;
  const store = (tokens: { access_token: string; refresh_token: string }) =>
    setSecret(service.t.runtime.commands, { organizationId, name: 'crm_oauth', value: JSON.stringify({ client: server.client, tokens: { ...tokens, token_type: 'Bearer' } }) }, service.t.runtime.masterKey, testPrincipal);
  const stored = async () => {
    const { state } = await service.t.runtime.organizations.load(organizationId);
    const secret = state.status === 'created' ? state.secrets.get('crm_oauth') : undefined;
    return { version: secret!.version, value: JSON.parse(decryptSecret(secret!.encryptedValue, service.t.runtime.masterKey)) as { tokens: { access_token: string; refresh_token: string } } };
  };
  const whoami = () => {
    service.model.script({ toolCalls: [{ id: 'c1', name: 'whoami', arguments: '{}' }] }, { content: 'done' });
    return service.execute('agent', { message: 'who are you?' });
  };

  beforeAll(async () => {
    server = await startOAuthMcpServer();
    service = await startSeededService('mcp_oauth', {}, { SEQFLOW_OUTBOUND_EXTRA_CA_FILE: server.caFile, SEQFLOW_LLM_MAX_RETRIES: '0' });
    organizationId = await findOrganizationId(service.t.runtime.commands, 'acme');
    await store(server.issue(3600));
    const crm = { type: 'mcp', url: server.url, oauth: { tokens: 'crm_oauth' }, allowed_tools: ['whoami'] };
    await importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'agent', name: 'agent', steps: [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4o', prompt: '{{message}}', processor_config: { server_tools: [crm] } } }] }, production: true }, testPrincipal);
    await service.t.runtime.projections.catchUp();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await server?.close();
  });
  beforeEach(() => service.model.reset());

  it('calls the server with the stored access token, and refreshes an expired one once, storing the rotated tokens as the next version', async () => {
    const first = await whoami();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(service.model.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: `signed in as ${server.client.client_id}` });
    expect(server.refreshes).toEqual({ granted: 0, refused: 0 });

    const expired = server.issue(0);
    await store(expired);
    const before = await stored();
    const second = await whoami();
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(server.refreshes).toEqual({ granted: 1, refused: 0 });
    const after = await stored();
    expect(after.version).toBe(before.version + 1);
    expect(after.value.tokens.access_token).not.toBe(expired.access_token);
    expect(after.value.tokens.refresh_token).not.toBe(expired.refresh_token);
    expect(server.accepted.at(-1)).toBe(after.value.tokens.access_token);
    // The rotation is the organization's event, and its value only ever encrypted.
    const rotations = (await service.t.runtime.eventStore.readStream(organizationStream(organizationId))).filter((e) => e.type === 'SecretSet' && (e.data as { name: string }).name === 'crm_oauth');
    expect(rotations.at(-1)!.metadata.principal).toEqual({ kind: 'system', id: 'oauth-refresh' });

    // The next run uses the refreshed token: no refresh.
    expect((await whoami()).status).toBe(200);
    expect(server.refreshes.granted).toBe(1);
    expect((await listSecrets(service.t.runtime.commands, organizationId)).find((s) => s.name === 'crm_oauth')!.version).toBe(after.version);
    expect(await tablesHoldingAny(service.t.runtime.db, [expired.access_token, expired.refresh_token, after.value.tokens.access_token, after.value.tokens.refresh_token, server.client.client_secret])).toEqual([]);
  });

  it('races of runs on one expired token: every run is answered, each reading the tokens another stored after it lost the refresh', async () => {
    service.model.respond = (request) => (request.body.messages.some((m) => m.role === 'tool') ? { content: 'done' } : { toolCalls: [{ id: 'c1', name: 'whoami', arguments: '{}' }] });
    await store(server.issue(0));
    const before = { ...server.refreshes };
    const answers = await Promise.all(Array.from({ length: 6 }, () => service.execute('agent', { message: 'who?' })));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    // One refresh token, used once: the runs that lost the race read the rotated tokens and refreshed nothing more with the spent one.
    expect(server.refreshes.granted - before.granted).toBeGreaterThanOrEqual(1);
    const { value } = await stored();
    expect(server.accepted.slice(-6)).toContain(value.tokens.access_token);
  });

  it('fails the step MCP_SERVER_FAILED, saying to authorize again, when the tokens can no longer be refreshed', async () => {
    const expired = server.issue(0);
    await store({ access_token: expired.access_token, refresh_token: 'rt-never-issued-0000' });
    const { status, body } = await whoami();
    expect(status).toBe(502);
    expect(body.detail).toMatchObject({ code: 'MCP_SERVER_FAILED', message: expect.stringContaining("refused the stored OAuth tokens (secret 'crm_oauth') and they could not be refreshed") });
    expect(server.refreshes.refused).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain('rt-never-issued-0000');
  });

  it('refuses at publish a server given both OAuth tokens and an Authorization header, and tokens the organization does not hold', async () => {
    const both = { type: 'mcp', url: server.url, oauth: { tokens: 'crm_oauth' }, headers: { Authorization: 'Bearer x' }, allowed_tools: ['whoami'] };
    const missing = { type: 'mcp', url: server.url, oauth: { tokens: 'nope_oauth' }, allowed_tools: ['whoami'] };
    for (const [tool, problem] of [
      [both, "the server's credential is its OAuth tokens or an Authorization header, not both"],
      [missing, "oauth.tokens: the organization has no secret 'nope_oauth'"],
    ] as const) {
      const refused = await importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'bad', name: 'bad', steps: [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4o', prompt: '{{message}}', processor_config: { server_tools: [tool] } } }] }, publish: true }, testPrincipal).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining(problem) });
    }
  });
});
