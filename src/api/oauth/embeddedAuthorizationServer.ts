import escapeHtml from 'escape-html';
import Provider, { type Configuration, errors } from 'oidc-provider';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../domain/oauth/accessTokenLifetime.ts';
import type { OAuthKeys } from '../../queries/oauthKeys.ts';
import { classifyRedirectUris } from './redirectUris.ts';
import { metadataDocumentFailure } from './metadataDocumentFailure.ts';
import type { Logger } from 'pino';

/** The scope of the MCP resource: what an assistant's token may do there (every tool). */
export const MCP_SCOPE = 'mcp';
/** The reading tools only: the scope of the read-only endpoint, or asked alone for the MCP endpoint. */
export const MCP_READ_SCOPE = 'mcp:read';
/** The one scope of the REST API's resource (its audience, the public URL): what a member's token may do there. */
export const API_SCOPE = 'api';
/** A grant outlives its refresh tokens: a sign-in ends by revocation or by its refresh token's idle time. */
const GRANT_TTL_SECONDS = 10 * 365 * 86_400;
/** The claim that names a token's grant: a token whose grant was revoked (or whose code was used twice) is refused. */
export const GRANT_CLAIM = 'grant_id';

/** The resources this server issues tokens for, and the scope each grants. */
export interface EmbeddedResources {
  /** The MCP endpoint's canonical URL: the default resource. */
  mcp: string;
  /** The read-only MCP endpoint's URL (`mcp:read`). */
  mcpReadOnly: string;
  /** The REST API's audience (the public URL), for webhook management by members. */
  api: string;
}

/**
 * The embedded OAuth 2.1 authorization server (oidc-provider) for a service started without an
 * OAUTH_ISSUER: authorization code with PKCE (S256, required), open dynamic client registration
 * (assistants register themselves), and RFC 8707 resource indicators: its access tokens are JWTs
 * (RFC 9068) whose audience is the MCP endpoint (the default resource) or the REST API. Each names
 * its grant, so the verifier refuses it once the grant is gone. Who signs in is decided on the
 * sign-in page (oauthRoutes.ts), not here. X-Forwarded-* headers are read only when `trustProxy`
 * says a proxy sets them: otherwise any caller could rewrite the discovery documents.
 */
export function createEmbeddedAuthorizationServer(input: {
  issuer: string;
  resources: EmbeddedResources;
  keys: OAuthKeys;
  /** Where clients, grants, sessions and refresh tokens are kept (postgresOAuthAdapter). */
  adapter: Configuration['adapter'];
  /** A sign-in unused this long ends (its refresh token expires; each use starts the time again). */
  idleSeconds: number;
  secureCookies: boolean;
  trustProxy: boolean;
  /** Every request the provider makes (Client ID Metadata Documents): the address guard's fetch. */
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** Client ID Metadata Documents: whether `ip` may have a document fetched now, and whether a client (by its URL) was revoked. */
  metadataDocuments: { enabled: boolean; mayFetch: (ip: string) => Promise<boolean>; revoked: (clientId: string) => Promise<boolean> };
  /** Where a sign-in's failure to read a client's metadata document is logged, with why. */
  logger: Pick<Logger, 'warn'>;
}): Provider {
  // The MCP endpoint's tokens may be narrowed to the reading tools (a client asking `mcp:read` alone).
  const scopeOf = new Map([[input.resources.mcp, `${MCP_SCOPE} ${MCP_READ_SCOPE}`], [input.resources.mcpReadOnly, MCP_READ_SCOPE], [input.resources.api, API_SCOPE]]);
  // A client that dropped the endpoint's trailing slash (claude.ai's connectors) names it without: the same resource, its token for the canonical URL.
  const { mcp, mcpReadOnly, api } = input.resources;
  const canonicalOf = new Map([[mcp, mcp], [mcp.replace(/\/+$/, ''), mcp], [mcpReadOnly, mcpReadOnly], [`${mcpReadOnly}/`, mcpReadOnly], [api, api]]);
  const configuration: Configuration = {
    adapter: input.adapter,
    jwks: { keys: input.keys.signing },
    cookies: {
      keys: input.keys.cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure: input.secureCookies },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure: input.secureCookies },
    },
    clients: [],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
    responseTypes: ['code'],
    // `mcp` is also listed here so that clients may register and request it (dynamic registration checks scopes against this list).
    scopes: ['openid', 'offline_access', MCP_SCOPE, MCP_READ_SCOPE, API_SCOPE],
    pkce: { required: () => true },
    // Checked at registration: native apps by their redirect URIs (loopback, private-use schemes), web clients on https.
    extraClientMetadata: {
      properties: ['redirect_uris'],
      validator: (_ctx, key, _value, metadata) => {
        if (key === 'redirect_uris') classifyRedirectUris(metadata as Record<string, unknown>);
      },
    },
    extraTokenClaims: (_ctx, token) => ('grantId' in token && typeof token.grantId === 'string' ? { [GRANT_CLAIM]: token.grantId } : undefined),
    // oidc-provider's own SSRF screening is replaced by the service's one address guard.
    fetch: input.fetch as NonNullable<Configuration['fetch']>,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // Client ID Metadata Documents (the MCP authorization spec of 2025-11-25): a client whose
      // client_id is the https URL of its metadata needs no registration. The document (5 KiB at
      // most, cached 30 s to a day as its Cache-Control says) is fetched through the address guard,
      // as many a minute per address as registrations; a client revoked by URL stays refused. The
      // ack pins the draft implemented: an upgrade that changes it stops the start until reviewed.
      clientIdMetadataDocument: {
        // SEQFLOW_OAUTH_CIMD=false: not advertised, so clients that would need this server to reach their hosts register instead.
        enabled: input.metadataDocuments.enabled,
        ack: 'draft-02',
        allowFetch: (ctx) => input.metadataDocuments.mayFetch(ctx.ip),
        allowClient: async (_ctx, client) => !(await input.metadataDocuments.revoked(client.clientId)),
      },
      // Every client here is public (no secret): a client may revoke only the tokens issued to it.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      // Off, and so not advertised: the resource server takes bearer tokens only, and a DPoP-bound token shown as a bearer one is refused (jwtVerifier.ts).
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // Clients that send no `resource` get tokens for the MCP endpoint: assistants are this server's usual clients.
        defaultResource: () => input.resources.mcp,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const audience = canonicalOf.get(indicator);
          const scope = audience === undefined ? undefined : scopeOf.get(audience);
          if (!audience || !scope) throw new errors.InvalidTarget(`this server issues tokens only for ${mcp}, ${mcpReadOnly} and ${api}`);
          return { scope, audience, accessTokenFormat: 'jwt', accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS, jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    // Assistants ask for their resource's scope only (never offline_access) and must stay signed in:
    // a client allowed the refresh_token grant gets a refresh token, rotated at each use, which
    // does not end with the browser's sign-in session. A sign-in ends when revoked, or unused for
    // `idleSeconds` (each rotation gives the new token the whole time again).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    ttl: { AccessToken: ACCESS_TOKEN_TTL_SECONDS, AuthorizationCode: 60, Interaction: 600, Grant: GRANT_TTL_SECONDS, Session: input.idleSeconds, RefreshToken: input.idleSeconds },
    renderError: (ctx, out, error) => {
      // A client's metadata document that could not be read: say why, on the page and in the log (the provider says only "fetch failed").
      const unread = metadataDocumentFailure(error);
      if (unread) input.logger.warn({ clientId: ctx.oidc?.params?.client_id, reason: unread }, "an assistant's client metadata document could not be read");
      const why = unread ? `<p class="reason">The client's metadata document at ${escapeHtml(String(ctx.oidc?.params?.client_id ?? ''))} could not be read: ${escapeHtml(unread)}.</p>` : '';
      ctx.type = 'html';
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Sign-in error</title><h1>Sign-in failed</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p>${why}`;
    },
  };
  const provider = new Provider(input.issuer, configuration);
  provider.proxy = input.trustProxy;
  return provider;
}
