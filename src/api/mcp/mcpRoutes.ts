import cors from '@fastify/cors';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { packageVersion } from '../../config/packageVersion.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import { type McpAuthenticator, type McpCaller, type McpEndpoint } from './mcpAuth.ts';
import { MCP_READ_SCOPE, MCP_SCOPE } from '../oauth/embeddedAuthorizationServer.ts';
import { createMcpServer } from './mcpServer.ts';
import type { McpServices } from './toolContext.ts';
import { createAuthoringService } from '../../authoring/authoringService.ts';
import { readsAfterChanges } from '../readsAfterChanges.ts';
import { createTestingService } from '../../testing/testingService.ts';
import { createBacktestService } from '../../backtests/backtestService.ts';
import { createRunRateLimiter } from './runRateLimiter.ts';
import { requestOrigin } from '../http/requestTracing.ts';
import { refuseUnstorableArguments } from './unstorableArguments.ts';
import { configuredProviders } from '../../domain/models/modelRoute.ts';

declare module 'fastify' {
  interface FastifyRequest {
    mcpCaller?: McpCaller;
  }
}

/** The MCP request headers a browser-based client sends, and the response headers it must read. */
const MCP_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID'];
const MCP_RESPONSE_HEADERS = ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version'];

/**
 * The assistant endpoint at exactly `/api/v1/mcp/` (Streamable HTTP, stateless: a fresh server and
 * transport per POST, so any number of processes can serve it), the read-only one at
 * `/api/v1/mcp/readonly` (the reading tools only: a resource of its own, so a client given its URL
 * signs in for it), and the OAuth protected-resource metadata (RFC 9728) of each. Registered at the
 * root: the metadata lives under `/.well-known`.
 */
export function mcpRoutes(runtime: Runtime, authenticate: McpAuthenticator) {
  const { resource, resourceMetadataUrl, readOnly, allowedOrigins, runsPerMinute } = runtime.config.mcp;
  const runLimiter = createRunRateLimiter(runsPerMinute);
  const services: McpServices = {
    // Reads within a reading tool may go to a read replica (createMcpServer); everything else, and every write, to the primary.
    authoring: createAuthoringService({ ...runtime, db: runtime.reads.db }),
    testing: createTestingService({ ...runtime, db: runtime.reads.db, engine: runtime.execution }),
    backtests: createBacktestService({ ...runtime, db: runtime.reads.db, engine: runtime.execution }),
    reads: readsAfterChanges({ appendedPosition: runtime.appendedPosition, reads: runtime.reads }),
    lifecycle: runtime.lifecycle,
    models: { registry: runtime.execution.registry, defaultModel: runtime.config.execution.defaultModel, configured: configuredProviders(runtime.config) },
    waitForPosition: (position, timeoutMs) => runtime.projections.waitForPosition(position, timeoutMs),
    logger: runtime.logger,
  };
  const version = packageVersion();
  const embedded = runtime.config.embeddedOAuth !== undefined;
  const endpoints = {
    full: { resource, resourceMetadataUrl, scope: MCP_SCOPE, name: 'Seqflow assistant endpoint' },
    readOnly: { ...readOnly, scope: MCP_READ_SCOPE, name: 'Seqflow assistant endpoint (read only)' },
  } satisfies Record<McpEndpoint, unknown>;
  const metadataOf = (endpoint: McpEndpoint) => ({
    resource: endpoints[endpoint].resource,
    authorization_servers: [runtime.config.oauth?.issuer ?? runtime.config.embeddedOAuth!.issuer],
    bearer_methods_supported: ['header'],
    // The embedded server's scope for this resource, which clients then request; an external issuer's scopes are its own business.
    ...(embedded ? { scopes_supported: [endpoints[endpoint].scope] } : {}),
    resource_name: endpoints[endpoint].name,
    resource_documentation: `${runtime.config.publicUrl}/api/v1/mcp/`,
  });
  // RFC 6750 §3 and the MCP authorization spec: what a client needs to sign in again (the metadata, and the scope to ask for), named in every 401.
  const challenge = (endpoint: McpEndpoint, description: string) =>
    `Bearer error="invalid_token", error_description="${description.replace(/["\\]/g, "'")}", resource_metadata="${endpoints[endpoint].resourceMetadataUrl}"${embedded ? `, scope="${endpoints[endpoint].scope}"` : ''}`;
  const signInTo = (endpoint: McpEndpoint) => async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      request.mcpCaller = await authenticate(request.headers.authorization, endpoint);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'UNAUTHENTICATED') reply.header('www-authenticate', challenge(endpoint, error.message));
      throw error;
    }
  };

  return async (app: FastifyInstance) => {
    const documents: [string, McpEndpoint][] = [
      ['/.well-known/oauth-protected-resource', 'full'],
      ['/.well-known/oauth-protected-resource/api/v1/mcp', 'full'],
      ['/.well-known/oauth-protected-resource/api/v1/mcp/', 'full'],
      ['/.well-known/oauth-protected-resource/api/v1/mcp/readonly', 'readOnly'],
      ['/.well-known/oauth-protected-resource/api/v1/mcp/readonly/', 'readOnly'],
    ];
    for (const [path, endpoint] of documents) {
      const metadata = metadataOf(endpoint);
      app.get(path, async (_request, reply) => reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300').send(metadata));
    }
    await app.register(async (mcp) => {
      // Before CORS and auth: a browser page of an origin not allowed gets nothing but 403 (DNS-rebinding defence).
      mcp.addHook('onRequest', async (request) => {
        const origin = request.headers.origin;
        if (origin !== undefined && !allowedOrigins.includes(origin)) throw new ApiError('FORBIDDEN', `Origin ${origin} may not call this endpoint (SEQFLOW_MCP_ALLOWED_ORIGINS)`);
      });
      await mcp.register(cors, { origin: allowedOrigins, methods: ['POST'], allowedHeaders: MCP_REQUEST_HEADERS, exposedHeaders: MCP_RESPONSE_HEADERS, maxAge: 600 });

      // A stateless server keeps no stream for GET and no session for DELETE to end.
      const postOnly = async (_request: unknown, reply: FastifyReply) => {
        reply.header('allow', 'POST');
        throw new ApiError('METHOD_NOT_ALLOWED', 'This endpoint is stateless: send JSON-RPC messages with POST');
      };
      const post = async (request: FastifyRequest, reply: FastifyReply) => {
        const refused = refuseUnstorableArguments(request.body);
        if (refused) return reply.header('content-type', 'application/json').send(refused);
        const caller = request.mcpCaller!;
        const server = createMcpServer({ services, scope: { organizationIds: caller.organizationIds }, metadata: { principal: caller.principal, ...requestOrigin(request) }, runLimiter }, version, { readOnly: caller.readOnly });
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        reply.hijack();
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      };
      // `/api/v1/mcp/` (the resource the metadata names) and `/api/v1/mcp` alike, each its own route:
      // claude.ai's connector form and the Claude apps drop the trailing slash. Never a redirect (a POST would not follow it).
      const routes: [string, McpEndpoint][] = [['/', 'full'], ['', 'full'], ['/readonly', 'readOnly'], ['/readonly/', 'readOnly']];
      for (const [url, endpoint] of routes) {
        const exact = { url, prefixTrailingSlash: 'slash' as const };
        const signIn = signInTo(endpoint);
        mcp.route({ ...exact, method: 'GET', exposeHeadRoute: false, handler: postOnly });
        mcp.route({ ...exact, method: 'DELETE', handler: postOnly });
        // A client probing the endpoint with HEAD learns how to sign in (the 401 challenge), as a POST would.
        mcp.route({ ...exact, method: 'HEAD', onRequest: signIn, handler: postOnly });
        mcp.route({ ...exact, method: 'POST', onRequest: signIn, config: { checksBodyText: true }, handler: post });
      }
    }, { prefix: '/api/v1/mcp' });
  };
}
