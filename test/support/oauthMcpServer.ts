import { randomUUID } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import { selfSignedCertificate } from './httpsReceiver.ts';

export interface OAuthMcpServer {
  /** `https://127.0.0.1:<port>/mcp` */
  url: string;
  caFile: string;
  /** The client Seqflow is registered as, with its secret. */
  client: { client_id: string; client_secret: string };
  /** Issues a token pair for the client, as an authorization would; `expiresInSeconds` 0: expired already. */
  issue(expiresInSeconds: number): { access_token: string; refresh_token: string };
  /** Each refresh the token endpoint granted, and each it refused. */
  refreshes: { granted: number; refused: number };
  /** The bearer tokens the MCP endpoint accepted, in order. */
  accepted: string[];
  close(): Promise<void>;
}

/**
 * A remote MCP server that wants OAuth, built of the MCP SDK's own server parts over HTTPS on
 * loopback: its authorization server (`mcpAuthRouter`: metadata, the token endpoint with its client
 * authentication and errors), its protected-resource metadata, and `requireBearerAuth` in front of a
 * Streamable HTTP MCP endpoint with one tool (`whoami`). The provider keeps tokens in memory:
 * access tokens live as long as issued, and a refresh token is used once (rotated), as OAuth 2.1
 * asks of public and confidential clients alike.
 */
export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const { key, cert, caFile } = selfSignedCertificate();
  const client: OAuthClientInformationFull = { client_id: `seqflow-${randomUUID()}`, client_secret: randomUUID(), redirect_uris: ['https://127.0.0.1/unused'], token_endpoint_auth_method: 'client_secret_post' };
  const access = new Map<string, { expiresAt: number }>();
  const refresh = new Map<string, string>();
  const refreshes = { granted: 0, refused: 0 };
  const accepted: string[] = [];
  let base = '';

  const issue = (expiresInSeconds: number) => {
    const pair = { access_token: `at-${randomUUID()}`, refresh_token: `rt-${randomUUID()}` };
    access.set(pair.access_token, { expiresAt: Date.now() + expiresInSeconds * 1000 });
    refresh.set(pair.refresh_token, client.client_id);
    return pair;
  };
  const provider: OAuthServerProvider = {
    clientsStore: { getClient: (id) => (id === client.client_id ? client : undefined) },
    authorize: async () => {
      throw new Error('this server issues tokens to its one client only (issue())');
    },
    challengeForAuthorizationCode: async () => {
      throw new Error('no authorization codes here');
    },
    exchangeAuthorizationCode: async () => {
      throw new InvalidGrantError('no authorization codes here');
    },
    exchangeRefreshToken: async (asking, refreshToken) => {
      if (refresh.get(refreshToken) !== asking.client_id) {
        refreshes.refused++;
        throw new InvalidGrantError('the refresh token is not valid (used already, or never issued)');
      }
      refresh.delete(refreshToken);
      refreshes.granted++;
      const pair = issue(3600);
      return { ...pair, token_type: 'Bearer', expires_in: 3600 };
    },
    verifyAccessToken: async (token) => {
      const known = access.get(token);
      if (!known || known.expiresAt <= Date.now()) throw new InvalidTokenError('the access token is not valid or has expired');
      return { token, clientId: client.client_id, scopes: [], expiresAt: Math.floor(known.expiresAt / 1000), resource: new URL(`${base}/mcp`) };
    },
  };

  const app = express();
  const server = createServer({ key, cert }, app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, tokenOptions: { rateLimit: false } }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post('/mcp', express.json(), bearer, async (req, res) => {
    accepted.push(String(req.auth?.token));
    const mcp = new McpServer({ name: 'crm', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Who the service is signed in as', inputSchema: { verbose: z.boolean().optional() } }, async () => ({ content: [{ type: 'text', text: `signed in as ${client.client_id}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  return {
    url: mcpUrl.href,
    caFile,
    client: { client_id: client.client_id, client_secret: client.client_secret! },
    issue,
    refreshes,
    accepted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
