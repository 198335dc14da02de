import type { IncomingMessage } from 'node:http';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { redeemLoginCode } from '../../commands/loginCodeCommands.ts';
import { completeApprovedSignIn } from '../../commands/signInApprovalCommands.ts';
import { signInRequestCode } from '../../domain/signIn/signInRequestCode.ts';
import { recordOAuthSignIn } from '../../commands/oauthClientCommands.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import type { CommandDependencies } from '../../commands/commandHandler.ts';
import { API_SCOPE, type EmbeddedResources, MCP_READ_SCOPE, MCP_SCOPE } from './embeddedAuthorizationServer.ts';
import { signInPage } from './signInPage.ts';
import { askedResources, readOnlyAsked, requesterOf } from './signInAsks.ts';
import { requestOrigin } from '../http/requestTracing.ts';

const PREFIX = '/oauth';
/** The provider's one metadata document, served at every discovery path clients try. */
const DISCOVERY = '/.well-known/openid-configuration';
/**
 * Wrong codes one address may try a minute: a code is 50 bits, and this keeps guessing pointless.
 * Each attempt is counted before its code is checked (a burst of guesses cannot slip past the
 * count), and a correct one is given back.
 */
const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;
/**
 * Anonymous client registrations one address may make a minute. An assistant registers once per
 * install; a flood of registrations would only fill the provider's store.
 */
const REGISTRATIONS_PER_MINUTE = 20;

/**
 * The embedded authorization server under `/oauth` (its discovery document at
 * `/oauth/.well-known/openid-configuration`), and its sign-in page at `/oauth/interaction/:uid`.
 * `provider` is made on first use: a process no assistant signs in to never makes keys.
 */
export function oauthRoutes(deps: { commands: CommandDependencies; resources: EmbeddedResources; makeRoomForRegistration: () => Promise<void>; consoleUrl: string | null }, provider: () => Promise<Provider>) {
  const attempts = new RateLimiterMemory({ points: SIGN_IN_ATTEMPTS_PER_MINUTE, duration: 60 });
  const registrations = new RateLimiterMemory({ points: REGISTRATIONS_PER_MINUTE, duration: 60 });
  const { resources } = deps;

  return async (app: FastifyInstance) => {
    await app.register(async (signIn) => {
      await signIn.register(formbody);
      // The sign-in page is never shown inside another site's frame (clickjacking): CSP and the older header alike.
      signIn.addHook('onSend', async (_request, reply) => {
        reply.header('content-security-policy', "frame-ancestors 'none'").header('x-frame-options', 'DENY');
      });
      const requester = async (oidc: Provider, details: Interaction) => {
        const client = await oidc.Client.find(String(details.params.client_id));
        return { ...requesterOf(details.params, client?.clientName ?? null, resources), client };
      };
      const pageOf = (details: Interaction) => ({ action: `${PREFIX}/interaction/${details.uid}`, requestCode: signInRequestCode(details.uid), consoleUrl: deps.consoleUrl });
      signIn.get('/interaction/:uid', async (request, reply) => {
        const oidc = await provider();
        const details = await oidc.interactionDetails(request.raw, reply.raw);
        // Login and consent alike are answered with a code: no client gets a token without one.
        const { client: _client, ...asking } = await requester(oidc, details);
        return reply.type('text/html').send(signInPage({ ...asking, ...pageOf(details) }));
      });
      signIn.post('/interaction/:uid', async (request, reply) => {
        const oidc = await provider();
        const details = await oidc.interactionDetails(request.raw, reply.raw);
        const { client, ...asking } = await requester(oidc, details);
        const page = (error: string) => signInPage({ ...asking, ...pageOf(details), error });
        if ((request.body as { approved?: unknown } | undefined)?.approved !== undefined) {
          // Approved in the console for the request code this page shows: only this browser (the interaction's cookie) can use it.
          try {
            const subject = await completeApprovedSignIn(deps.commands, signInRequestCode(details.uid), { principal: { kind: 'system', id: 'oauth-sign-in' } });
            return await finish(oidc, details, request, reply, { subject, clientName: client?.clientName ?? null });
          } catch (error) {
            if (error instanceof ApiError && error.code === 'SIGN_IN_NOT_APPROVED') return reply.status(401).type('text/html').send(page(error.message));
            throw error;
          }
        }
        try {
          await attempts.consume(request.ip);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          return reply.status(429).header('retry-after', Math.ceil(rejection.msBeforeNext / 1000)).type('text/html').send(page('Too many attempts: wait a minute, then try again.'));
        }
        const code = (request.body as { code?: unknown } | undefined)?.code;
        try {
          const subject = await redeemLoginCode(deps.commands, typeof code === 'string' ? code : '', { principal: { kind: 'system', id: 'oauth-sign-in' } });
          // Only wrong codes count: many members behind one address (an office NAT) sign in freely.
          await attempts.reward(request.ip, 1);
          return await finish(oidc, details, request, reply, { subject, clientName: client?.clientName ?? null });
        } catch (error) {
          if (error instanceof ApiError && error.code === 'LOGIN_CODE_INVALID') return reply.status(401).type('text/html').send(page(error.message));
          throw error;
        }
      });
    }, { prefix: PREFIX });

    await app.register(async (oauth) => {
      // oidc-provider reads its own request bodies: Fastify leaves the stream alone here.
      oauth.removeAllContentTypeParsers();
      oauth.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      oauth.all('/*', async (request, reply) => {
        if (request.method === 'POST' && request.url.split('?')[0] === `${PREFIX}/reg`) {
          try {
            await registrations.consume(request.ip);
          } catch (rejection) {
            if (!(rejection instanceof RateLimiterRes)) throw rejection;
            // RFC 7591's error shape, with the wait in Retry-After.
            return reply.status(429).header('retry-after', Math.ceil(rejection.msBeforeNext / 1000)).send({ error: 'rate_limited', error_description: `at most ${REGISTRATIONS_PER_MINUTE} client registrations a minute from one address` });
          }
          // Never refused for what others registered: the oldest registrations no one signed in with make room (a flood evicts itself).
          await deps.makeRoomForRegistration();
        }
        const path = request.url.split('?')[0];
        await serve(request, reply, path === `${PREFIX}/.well-known/oauth-authorization-server` ? DISCOVERY : request.raw.url!.slice(PREFIX.length) || '/');
      });
    }, { prefix: PREFIX });

    // RFC 8414 and OpenID discovery for an issuer with a path (`/oauth`): the path-insertion forms.
    for (const path of [`/.well-known/oauth-authorization-server${PREFIX}`, `/.well-known/openid-configuration${PREFIX}`]) {
      app.get(path, async (request, reply) => serve(request, reply, DISCOVERY));
    }
  };

  /** Hands the request to the provider as `path` below its mount, as Express would mount it (the provider learns its mount from originalUrl). */
  async function serve(request: FastifyRequest, reply: FastifyReply, path: string) {
    const oidc = await provider();
    reply.hijack();
    const raw = request.raw as IncomingMessage & { originalUrl?: string };
    raw.originalUrl = `${PREFIX}${path}`;
    raw.url = path;
    await oidc.callback()(raw, reply.raw);
  }

  /**
   * Signs `subject` in and grants the client the resources it asked for (`resource`, else the MCP
   * endpoint) and the OpenID scopes it asked for. What the member may do there is decided per
   * request (membership, role), not by the grant.
   */
  async function finish(oidc: Provider, details: Awaited<ReturnType<Provider['interactionDetails']>>, request: FastifyRequest, reply: FastifyReply, member: { subject: string; clientName: string | null }) {
    const { subject } = member;
    const clientId = String(details.params.client_id);
    const grant = details.grantId ? await oidc.Grant.find(details.grantId) : new oidc.Grant({ accountId: subject, clientId });
    if (!grant) throw new Error('the interaction names a grant that does not exist');
    const requested = new Set(String(details.params.scope ?? '').split(' ').filter(Boolean));
    // The resource scopes are also listed among the provider's scopes (registration checks them there), so they are granted as such too.
    const oidcScopes = ['openid', 'offline_access', MCP_SCOPE, MCP_READ_SCOPE, API_SCOPE].filter((scope) => requested.has(scope));
    if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(' '));
    const asked = askedResources(details.params);
    // A client that asks `mcp:read` alone gets the reading tools only, on the full endpoint as on the read-only one.
    const mcpScope = readOnlyAsked(details.params, resources) ? MCP_READ_SCOPE : MCP_SCOPE;
    if (asked.length === 0 || asked.includes(resources.mcp)) grant.addResourceScope(resources.mcp, mcpScope);
    // The endpoint as a client that dropped its trailing slash names it (its token is still for the canonical URL).
    const slashless = resources.mcp.replace(/\/+$/, '');
    if (asked.includes(slashless)) grant.addResourceScope(slashless, mcpScope);
    for (const readOnly of [resources.mcpReadOnly, `${resources.mcpReadOnly}/`]) if (asked.includes(readOnly)) grant.addResourceScope(readOnly, MCP_READ_SCOPE);
    if (asked.includes(resources.api)) grant.addResourceScope(resources.api, API_SCOPE);
    const granted = Object.keys(grant.resources ?? {});
    await recordOAuthSignIn(deps.commands, { clientId, clientName: member.clientName, subject, resources: granted }, { principal: { kind: 'user', id: subject }, ...requestOrigin(request) });
    const grantId = await grant.save();
    reply.hijack();
    await oidc.interactionFinished(request.raw, reply.raw, { login: { accountId: subject }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
