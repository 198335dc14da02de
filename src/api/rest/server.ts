import { requestLogger } from '../http/requestLogger.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime/runtime.ts';
import { installRequestIds, requestIdOptions } from './requestIds.ts';
import { installRequestTracing } from '../http/requestTracing.ts';
import { type ApiKeyPrincipal, createApiKeyAuthenticator } from '../auth/apiKeyAuthenticator.ts';
import { approvalRoutes } from './routes/approvalRoutes.ts';
import { createJwtVerifier } from '../auth/jwtVerifier.ts';
import { createOrganizationAuth } from '../auth/organizationAuth.ts';
import { createMcpAuthenticator } from '../mcp/mcpAuth.ts';
import { assistantRoutes } from './routes/assistantRoutes.ts';
import { createEmbeddedOAuth } from '../oauth/embeddedOAuth.ts';
import { oauthRoutes } from '../oauth/oauthRoutes.ts';
import { mcpRoutes } from '../mcp/mcpRoutes.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './errorHandler.ts';
import { installJsonParser, installRequestGuards } from './requestGuards.ts';
import { trackRouteMethods } from './routeMethods.ts';
import { executeRoutes } from './routes/executeRoutes.ts';
import { flowRoutes } from './routes/flowRoutes.ts';
import { healthRoutes } from './routes/healthRoutes.ts';
import { jobRoutes } from './routes/jobRoutes.ts';
import { runListingRoutes } from './routes/runListingRoutes.ts';
import { readYourWrites } from './readYourWrites.ts';
import { stepRoutes } from './routes/stepRoutes.ts';
import { webhookManagementRoutes } from './routes/webhookManagementRoutes.ts';
import { installCors } from './corsPolicy.ts';
import { installHttpMetrics } from '../metrics/metricsRoutes.ts';
import { installRateLimits } from './rateLimits.ts';
import { installApiDocument } from './openapi/apiDocument.ts';
import { packageVersion } from '../../config/packageVersion.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKeyPrincipal;
  }
}

/** The public REST facade under /api/v1, and the assistant (MCP) endpoint at /api/v1/mcp/. */
export async function buildServer(runtime: Runtime): Promise<FastifyInstance> {
  // X-Forwarded-For names the client (rate limits, sign-in limits) only when a proxy is said to set it.
  const app = Fastify({ loggerInstance: requestLogger(runtime.logger), bodyLimit: 2 * 1024 * 1024, trustProxy: runtime.config.trustProxy, frameworkErrors: frameworkErrorHandler, clientErrorHandler, ...requestIdOptions() });
  installRequestIds(app);
  installRequestTracing(app, runtime.tracing.tracer);
  installErrorHandling(app, trackRouteMethods(app));
  installJsonParser(app);
  installRequestGuards(app);
  installHttpMetrics(app, runtime.metrics);
  await installApiDocument(app, packageVersion(), runtime.config.publicUrl);
  const authenticate = createApiKeyAuthenticator(runtime.db, runtime.eventStore, runtime.logWatch);
  // The API's caches skip a round trip per request while the watch runs (it stops with the runtime).
  runtime.logWatch.start();
  app.addHook('onClose', async () => void authenticate.close());
  const jwt = runtime.config.oauth ? createJwtVerifier(runtime.config.oauth, runtime.execution.guard) : undefined;
  // Assistants sign in with the configured issuer, or else with the embedded one.
  const embedded = runtime.config.embeddedOAuth ? createEmbeddedOAuth(runtime.config, runtime.config.embeddedOAuth, { db: runtime.db, masterKey: runtime.masterKey, eventStore: runtime.eventStore, guard: runtime.execution.guard, logger: runtime.logger }) : undefined;
  if (embedded) await app.register(oauthRoutes({ commands: runtime.commands, resources: { mcp: runtime.config.mcp.resource, mcpReadOnly: runtime.config.mcp.readOnly.resource, api: runtime.config.publicUrl }, makeRoomForRegistration: embedded.makeRoomForRegistration, consoleUrl: runtime.config.console.url }, embedded.provider));
  await app.register(mcpRoutes(runtime, createMcpAuthenticator(runtime.db, embedded?.verifier ?? jwt, runtime.config.mcp)));
  await app.register(
    async (api) => {
      await installCors(api, runtime.config.corsOrigins);
      await api.register(healthRoutes(runtime));
      // An organization's assistants, for its admins: only where this service signs them in.
      if (embedded) await api.register(assistantRoutes({ commands: runtime.commands, db: runtime.db, masterKey: runtime.masterKey }, createOrganizationAuth(runtime.eventStore, authenticate, jwt ?? embedded.verifier)));
      await api.register(webhookManagementRoutes({ ...runtime, secretGraceSeconds: runtime.config.webhooks.secretGraceSeconds }, createOrganizationAuth(runtime.eventStore, authenticate, jwt ?? embedded?.verifier)));
      // Decided by a member signed in or by an API key acting as one: authenticated by the route
      // itself, after the rate limit's hook, which counts these by the client's address.
      await api.register(async (approvals) => {
        await installRateLimits(approvals, runtime.config.rateLimit);
        await approvals.register(approvalRoutes({ db: runtime.db, commands: runtime.commands, apiKeys: authenticate, authorize: createOrganizationAuth(runtime.eventStore, authenticate, jwt ?? embedded?.verifier) }));
      });
      // Everything else under /seq is API-key authenticated and scoped to the key's project.
      await api.register(async (seq) => {
        seq.addHook('onRequest', async (request) => {
          request.apiKey = await authenticate(request.headers.authorization);
        });
        await installRateLimits(seq, runtime.config.rateLimit);
        const positions = readYourWrites({ appendedPosition: runtime.appendedPosition, reads: runtime.reads });
        positions.install(seq);
        await seq.register(flowRoutes(runtime.flows));
        await seq.register(executeRoutes(runtime.runs));
        await seq.register(stepRoutes(runtime.runs, runtime.config.execution.sseKeepAliveMs));
        await seq.register(jobRoutes(runtime.runs, positions));
        await seq.register(runListingRoutes(runtime.runs, positions));
      });
    },
    { prefix: '/api/v1' },
  );
  return app;
}
