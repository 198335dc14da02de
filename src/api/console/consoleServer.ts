import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { redeemConsoleLink } from '../../commands/consoleLinkCommands.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import { createJwtVerifier } from '../auth/jwtVerifier.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from '../rest/errorHandler.ts';
import { installJsonParser } from '../rest/requestGuards.ts';
import { trackRouteMethods } from '../rest/routeMethods.ts';
import { createConsoleContextFactory, createLiveSubscriptions } from './consoleContext.ts';
import { consoleRouter } from './consoleRouter.ts';
import { SESSION_COOKIE, createConsoleSessions } from './consoleSession.ts';

/** Open `events.live` streams per listener; one more is refused TOO_MANY_REQUESTS. */
const MAX_LIVE_SUBSCRIPTIONS = 32;

/**
 * The operator console on its own listener (SEQFLOW_CONSOLE_HOST/PORT, loopback by default; never
 * the public port): the tRPC router at /internal/trpc, and /login, where a one-time link from
 * `seqflow console link` opens a session (an HttpOnly, SameSite=Strict cookie).
 */
export async function buildConsoleServer(runtime: Runtime): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: runtime.logger as FastifyBaseLogger, frameworkErrors: frameworkErrorHandler, clientErrorHandler });
  installErrorHandling(app, trackRouteMethods(app));
  installJsonParser(app);
  const sessions = createConsoleSessions(runtime.masterKey);
  const jwt = runtime.config.oauth ? createJwtVerifier(runtime.config.oauth) : undefined;

  app.get('/login', async (request, reply) => {
    const query = z.object({ token: z.string().min(1).max(200) }).safeParse(request.query);
    if (!query.success) throw new ApiError('VALIDATION_FAILED', 'Open the whole link `seqflow console link` printed: it carries ?token=');
    const { token } = query.data;
    const operator = await redeemConsoleLink(runtime.commands, token, { principal: { kind: 'system', id: 'console-login' } });
    const session = await sessions.issue(operator);
    return reply
      .header('set-cookie', `${SESSION_COOKIE}=${encodeURIComponent(session)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${sessions.maxAgeSeconds}`)
      .header('cache-control', 'no-store')
      .send({ signedIn: operator });
  });

  await app.register(fastifyTRPCPlugin, {
    prefix: '/internal/trpc',
    trpcOptions: { router: consoleRouter, createContext: createConsoleContextFactory(runtime, sessions, jwt, runtime.config.console.audience, createLiveSubscriptions(MAX_LIVE_SUBSCRIPTIONS)) },
  });
  return app;
}
