import type { ServerResponse } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLoginCode } from '../../src/commands/loginCodeCommands.ts';
import { revokeOAuthClient } from '../../src/commands/oauthClientCommands.ts';
import { listOAuthClients } from '../../src/queries/oauthClientQueries.ts';
import { oauthTablesOf } from '../../src/queries/oauthStoreTables.ts';
import { startEmbeddedOAuthService, type EmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { CAPPED_READ_SENT_BOUND, streamHugeBody } from '../support/hugeBody.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver.ts';
import { AssistantAuth, Browser, REDIRECT_URL } from '../support/oauthAssistant.ts';
import { testPrincipal } from '../support/testRuntime.ts';

/** An assistant that names itself by the URL of its metadata document instead of registering (the SDK's `clientMetadataUrl`). */
class MetadataDocumentAssistant extends AssistantAuth {
  readonly clientMetadataUrl: string;

  constructor(clientMetadataUrl: string) {
    super();
    this.clientMetadataUrl = clientMetadataUrl;
  }
}

/**
 * Client ID Metadata Documents (the MCP authorization spec of 2025-11-25): the client_id is an
 * https URL, the server fetches the client's metadata from it (through the address guard) and
 * stores no registration.
 */
describe('assistants known by their Client ID Metadata Document', () => {
  let documents: HttpsReceiver;
  let service: EmbeddedOAuthService;
  const document = (clientId: string, name: string) => ({ client_id: clientId, client_name: name, redirect_uris: [REDIRECT_URL], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });

  /** Bytes of the 30 MB document the server got to send before the reader hung up. */
  const huge = { bytes: 0 };
  const sendHuge = (res: ServerResponse) => void streamHugeBody(res, 30 * (1 << 20), huge);

  beforeAll(async () => {
    documents = await startHttpsReceiver((request, res) => {
      if (request.path === '/huge/client.json' || request.path === '/huge/jwks.json') return void sendHuge(res);
      const url = `${documents.url}${request.path}`;
      const body = request.path === '/assistant/client.json' ? document(url, 'Metadata Assistant') : request.path === '/impostor/client.json' ? document(`${documents.url}/assistant/client.json`, 'Impostor') : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end(JSON.stringify(body ?? {}));
    });
    // The documents live on loopback, which the address guard refuses unless the operator allows it.
    service = await startEmbeddedOAuthService('metadata_documents', { alice: 'member' }, { SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', SEQFLOW_OUTBOUND_EXTRA_CA_FILE: documents.caFile });
  });
  afterAll(async () => {
    await service?.close();
    await documents?.close();
  });

  const signIn = async (auth: AssistantAuth) => {
    const transport = new StreamableHTTPClientTransport(new URL(service.mcpUrl), { authProvider: auth });
    await expect(new Client({ name: 'cimd', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const browser = new Browser();
    const page = await browser.follow(auth.authorizationUrl!.href);
    const html = await page.response.text();
    expect(html).toContain('<strong class="client-name">Metadata Assistant</strong>');
    // Where its document lives, not only the name the document gives.
    expect(html).toContain(`described by a document at <strong class="document-host">${new URL(documents.url).host}</strong>`);
    const { code } = await issueLoginCode({ ...service.t.runtime.commands, db: service.t.runtime.db }, { subject: 'alice' }, testPrincipal);
    const signedIn = await browser.follow(new URL(/action="([^"]+)"/.exec(html)![1]!, service.origin).href, { method: 'POST', form: { code } });
    await transport.finishAuth(signedIn.location!.searchParams.get('code')!);
  };

  it('advertises the documents, signs the SDK\'s client in by its URL without a registration, and lists it; revoked, its URL is refused', async () => {
    const discovery = (await (await fetch(`${service.origin}/.well-known/oauth-authorization-server/oauth`)).json()) as { client_id_metadata_document_supported?: boolean };
    expect(discovery.client_id_metadata_document_supported).toBe(true);

    const clientId = `${documents.url}/assistant/client.json`;
    const auth = new MetadataDocumentAssistant(clientId);
    await signIn(auth);
    expect(auth.client?.client_id).toBe(clientId);
    expect(decodeJwt(auth.stored!.access_token)).toMatchObject({ client_id: clientId, sub: 'alice' });
    const client = new Client({ name: 'cimd', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(service.mcpUrl), { authProvider: auth }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('list_projects');
    await client.close();
    // The document was fetched; no registration was stored.
    expect(documents.received.filter((request) => request.path === '/assistant/client.json').length).toBeGreaterThan(0);
    const stored = await sql<{ n: number }>`SELECT count(*)::int AS n FROM oauth_store WHERE model = 'Client'`.execute(service.t.runtime.db);
    expect(stored.rows[0]!.n).toBe(0);

    const oauth = oauthTablesOf(service.t.runtime.db);
    expect(await listOAuthClients(oauth, service.t.runtime.masterKey)).toContainEqual({ clientId, clientName: null, redirectUris: [], registeredAt: expect.any(String), signedIn: true, grants: 1, metadataDocument: true, subjects: ['alice'] });
    expect(await revokeOAuthClient({ ...service.t.runtime.commands, oauth, masterKey: service.t.runtime.masterKey }, clientId, testPrincipal)).toEqual({ clientId, revoked: true, recorded: true });
    const refused = await fetch(service.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${auth.stored!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    expect(refused.status).toBe(401);
    // Its document is still public, but the URL stays revoked.
    const again = await fetch(`${service.origin}/oauth/auth?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URL, scope: 'mcp', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`, { redirect: 'manual' });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('invalid_client');
  });

  it("reads a registered client's jwks_uri only up to a cap: a 30 MB key set is cut, and the client's authentication refused", async () => {
    const registered = await fetch(`${service.origin}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${documents.url}/huge/jwks.json` }),
    });
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string };
    huge.bytes = 0;
    const assertion = ['{"alg":"RS256"}', JSON.stringify({ iss: client.client_id, sub: client.client_id, aud: `${service.origin}/oauth/token`, jti: 'j1', exp: Math.floor(Date.now() / 1000) + 60 }), 'sig'].map((part) => Buffer.from(part).toString('base64url')).join('.');
    const token = await fetch(`${service.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URL, code_verifier: 'v'.repeat(43), client_id: client.client_id, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion }),
    });
    expect(token.status).toBe(401);
    expect(await token.json()).toMatchObject({ error: 'invalid_client' });
    expect(huge.bytes).toBeGreaterThan(0);
    expect(huge.bytes).toBeLessThan(CAPPED_READ_SENT_BOUND);
  });

  it('refuses a document that names another client_id, and a URL the address guard refuses, fetching nothing there', async () => {
    const authorize = (clientId: string) => fetch(`${service.origin}/oauth/auth?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URL, scope: 'mcp', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`, { redirect: 'manual' });
    const impostor = await authorize(`${documents.url}/impostor/client.json`);
    expect(impostor.status).toBe(400);
    expect(await impostor.text()).toContain('invalid_client');

    // A 30 MB document: read up to the cap, then the transfer is cut; refused like any bad document.
    const tooLarge = await authorize(`${documents.url}/huge/client.json`);
    expect(tooLarge.status).toBe(400);
    expect(await tooLarge.text()).toContain('invalid_client');
    expect(huge.bytes).toBeLessThan(CAPPED_READ_SENT_BOUND);

    const before = documents.received.length;
    const internal = await authorize('https://10.0.0.1/client.json');
    expect(internal.status).toBe(400);
    expect(await internal.text()).toContain('invalid_client');
    expect(documents.received.length).toBe(before);
  });

  it('says why a document could not be read, on the page and in the log: the address guard, DNS, the status, the size', async () => {
    const authorize = async (clientId: string) =>
      (await fetch(`${service.origin}/oauth/auth?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URL, scope: 'mcp', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`, { redirect: 'manual' })).text();
    expect(await authorize('https://10.0.0.1/client.json')).toContain('its address is refused by the outbound address guard');
    expect(await authorize('https://no-such-host.invalid/client.json')).toContain('name did not resolve (DNS');
    expect(await authorize(`${documents.url}/missing/client.json`)).toContain('its host answered HTTP 404');
    expect(await authorize(`${documents.url}/huge/client.json`)).toMatch(/the document is larger than \d+ bytes/);
  });
});

describe('Client ID Metadata Documents turned off (SEQFLOW_OAUTH_CIMD=false, for a service with no way out)', () => {
  let service: EmbeddedOAuthService;
  beforeAll(async () => {
    service = await startEmbeddedOAuthService('metadata_documents_off', { alice: 'member' }, { SEQFLOW_OAUTH_CIMD: 'false' });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('does not advertise them, so clients register instead; a URL as client_id is an unknown client, fetched from nowhere', async () => {
    const discovery = (await (await fetch(`${service.origin}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
    expect(discovery.client_id_metadata_document_supported).not.toBe(true);
    expect(discovery.registration_endpoint).toEqual(expect.any(String));
    const page = await fetch(`${service.origin}/oauth/auth?${new URLSearchParams({ client_id: 'https://10.0.0.1/client.json', response_type: 'code', redirect_uri: REDIRECT_URL, scope: 'mcp', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`, { redirect: 'manual' });
    expect(page.status).toBe(400);
    const text = await page.text();
    expect(text).toContain('invalid_client');
    expect(text).not.toContain('metadata document');
  });
});
