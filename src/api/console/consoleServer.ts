import { createBacktestService } from '../../backtests/backtestService.ts';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import { requestLogger } from '../http/requestLogger.ts';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { redeemConsoleLink } from '../../commands/consoleLinkCommands.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import { createJwtVerifier } from '../auth/jwtVerifier.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from '../rest/errorHandler.ts';
import { installJsonParser } from '../rest/requestGuards.ts';
import { trackRouteMethods } from '../rest/routeMethods.ts';
import { type ConsoleServices, createConsoleContextFactory, createLiveSubscriptions } from './consoleContext.ts';
import { consoleRouter } from './consoleRouter.ts';
import { SESSION_COOKIE, createConsoleSessions } from './consoleSession.ts';
import { installRequestIds, requestIdOptions } from '../rest/requestIds.ts';
import { confirmPage } from './loginConfirmPage.ts';
import { createConsoleSignIns } from '../oauth/consoleSignIns.ts';
import { readsAfterChanges } from '../readsAfterChanges.ts';


/**
 * The operator console on its own listener (SEQFLOW_CONSOLE_HOST/PORT, loopback by default; never
 * the public port): the page at `/`, the tRPC router at /internal/trpc, and /login, where a one-time
 * link from `seqflow console link` opens a session (an HttpOnly, SameSite=Strict cookie) once its
 * page's button is pressed (a POST).
 */
export async function buildConsoleServer(
  runtime: Runtime,
  options: { /** Open `events.live` streams on this listener; one more is refused TOO_MANY_REQUESTS. */ maxLiveSubscriptions?: number } = {},
): Promise<FastifyInstance> {
  // A one-time link's token is a credential, as is a key pasted into a query: the request log redacts them.
  const app = Fastify({ loggerInstance: requestLogger(runtime.logger), frameworkErrors: frameworkErrorHandler, clientErrorHandler, ...requestIdOptions() });
  installRequestIds(app);
  installErrorHandling(app, trackRouteMethods(app));
  installJsonParser(app);
  const sessions = createConsoleSessions(runtime.masterKey);
  const jwt = runtime.config.oauth ? createJwtVerifier(runtime.config.oauth, runtime.execution.guard) : undefined;

  // The link's GET only shows a button: link previews and scanners fetch links, and must not use them up.
  app.get('/login', async (request, reply) => {
    const query = z.object({ token: z.string().min(1).max(200) }).safeParse(request.query);
    if (!query.success) throw new ApiError('VALIDATION_FAILED', 'Open the whole link `seqflow console link` printed: it carries ?token=');
    return reply.header('cache-control', 'no-store').header('referrer-policy', 'same-origin').type('text/html').send(confirmPage(query.data.token));
  });
  await app.register(async (login) => {
    await login.register(formbody);
    login.post('/login', async (request, reply) => {
      // Only this console's own page signs in: a form on another site cannot plant its session here.
      if (!fromOwnOrigin(request)) throw new ApiError('FORBIDDEN', 'Sign in from the console\'s own page');
      const body = z.object({ token: z.string().min(1).max(200) }).safeParse(request.body);
      if (!body.success) throw new ApiError('VALIDATION_FAILED', 'Send the `token` of the link `seqflow console link` printed');
      const operator = await redeemConsoleLink(runtime.commands, body.data.token, { principal: { kind: 'system', id: 'console-login' } });
      const session = await sessions.issue(operator, runtime.commands.now().getTime());
      reply.header('set-cookie', `${SESSION_COOKIE}=${encodeURIComponent(session)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${sessions.maxAgeSeconds}`).header('cache-control', 'no-store');
      // A browser that confirmed goes on to the page; a script gets who signed in.
      if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return reply.redirect('/#/runs', 303);
      return reply.send({ signedIn: operator });
    });
  });

  await servePage(app);

  // A mutation (tRPC sends them as POST) is the console page's own, or a client's that sends no
  // Origin (a script with a bearer token): a page on another site that a signed-in operator opens
  // cannot act with the operator's cookie, whatever the browser's SameSite rules let through.
  app.addHook('onRequest', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD' || !request.url.startsWith('/internal/trpc')) return;
    if (!fromOwnOrigin(request)) throw new ApiError('FORBIDDEN', `The console takes changes only from its own page (${request.protocol}://${request.host}), not from ${String(request.headers.origin)}`);
  });

  await app.register(fastifyTRPCPlugin, {
    prefix: '/internal/trpc',
    trpcOptions: {
      router: consoleRouter,
      createContext: createConsoleContextFactory(consoleServices(runtime), sessions, jwt, runtime.config.console.audience, createLiveSubscriptions(options.maxLiveSubscriptions ?? 32)),
      // The service's own fault: logged whole, answered without its text (it can name tables, queries, data).
      onError: ({ error, path }: { error: { code: string; cause?: unknown; message: string }; path?: string }) => {
        if (error.code !== 'INTERNAL_SERVER_ERROR' || error.cause instanceof ApiError) return;
        const errorId = randomUUID();
        runtime.logger.error({ err: error.cause ?? error, path, errorId }, 'console procedure failed');
        error.message = `internal error (error id ${errorId}: the service log has it)`;
      },
    },
  });
  return app;
}

/** Where `npm run build` puts the console page (the same from src/api/console and dist/api/console). */
const PAGE_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

/**
 * The console page at `/`: static files, same origin as the router, and a content security policy
 * that lets it reach nothing else. Without a build, `/` says how to make one.
 */
async function servePage(app: FastifyInstance) {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    reply.header('x-content-type-options', 'nosniff');
  });
  if (!existsSync(`${PAGE_DIR}index.html`)) {
    app.get('/', async (_request, reply) => reply.code(503).type('text/plain').send('The console page is not built: run `npm run build` (the tRPC router at /internal/trpc works without it).\n'));
    return;
  }
  await app.register(fastifyStatic, { root: PAGE_DIR, prefix: '/', index: 'index.html', cacheControl: false, setHeaders: (res, file) => res.setHeader('cache-control', file.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable') });
}

/** What the console's procedures use, from the process's runtime. */
const consoleServices = (runtime: Runtime): ConsoleServices => ({
  commands: runtime.commands,
  db: runtime.reads.db,
  operatorReads: readsAfterChanges({ appendedPosition: runtime.appendedPosition, reads: runtime.reads }),
  eventStore: runtime.eventStore,
  runs: runtime.runs,
  backtests: createBacktestService({ ...runtime, engine: runtime.execution }),
  projections: runtime.projections,
  tasks: runtime.supervisor,
  watchdog: runtime.watchdog,
  masterKey: runtime.masterKey,
  runDataKeys: runtime.runDataKeys,
  secretGraceSeconds: runtime.config.webhooks.secretGraceSeconds,
  databaseUrl: runtime.databaseUrl,
  logger: runtime.logger,
  signIns: runtime.config.embeddedOAuth ? createConsoleSignIns({ commands: runtime.commands, db: runtime.db, masterKey: runtime.masterKey, mcpReadOnly: runtime.config.mcp.readOnly.resource }) : null,
});

/**
 * Whether a request comes from the console's own page: its Origin is the console's, or it sends
 * none (no browser leaves Origin out of a cross-site POST; a script does, and a script brings its
 * own credentials). `Sec-Fetch-Site: cross-site` counts as foreign too.
 */
function fromOwnOrigin(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return false;
  const origin = request.headers.origin;
  return origin === undefined || origin === `${request.protocol}://${request.host}`;
}
