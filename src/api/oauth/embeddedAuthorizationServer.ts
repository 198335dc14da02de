import escapeHtml from 'escape-html';
import Provider, { type Configuration, errors } from 'oidc-provider';
import type { OAuthKeys } from './oauthKeys.ts';

/** The one scope of the MCP resource: what an assistant's token may do there. */
export const MCP_SCOPE = 'mcp';
const ACCESS_TOKEN_TTL_SECONDS = 3600;

/**
 * The embedded OAuth 2.1 authorization server (oidc-provider) for a service started without an
 * OAUTH_ISSUER: authorization code with PKCE (S256, required), open dynamic client registration
 * (assistants register themselves), and RFC 8707 resource indicators: its access tokens are JWTs
 * (RFC 9068) whose audience is the MCP endpoint, the only resource it issues tokens for. Who signs
 * in is decided on the sign-in page (signInRoutes.ts), not here.
 */
export function createEmbeddedAuthorizationServer(input: { issuer: string; resource: string; keys: OAuthKeys; secureCookies: boolean }): Provider {
  const configuration: Configuration = {
    jwks: { keys: [input.keys.signing] },
    cookies: {
      keys: input.keys.cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure: input.secureCookies },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure: input.secureCookies },
    },
    clients: [],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
    responseTypes: ['code'],
    // `mcp` is also listed here so that clients may register and request it (dynamic registration checks scopes against this list).
    scopes: ['openid', 'offline_access', MCP_SCOPE],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Clients that send no `resource` still get tokens for the MCP endpoint: it is the only resource.
        defaultResource: () => input.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== input.resource) throw new errors.InvalidTarget(`this server issues tokens only for ${input.resource}`);
          return { scope: MCP_SCOPE, audience: input.resource, accessTokenFormat: 'jwt', accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS, jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    issueRefreshToken: (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    ttl: { AccessToken: ACCESS_TOKEN_TTL_SECONDS, AuthorizationCode: 60, Interaction: 600, Grant: 14 * 86_400, Session: 14 * 86_400, RefreshToken: 14 * 86_400 },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Sign-in error</title><h1>Sign-in failed</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p>`;
    },
  };
  const provider = new Provider(input.issuer, configuration);
  // Behind a TLS-terminating proxy, URLs follow X-Forwarded-Proto/Host.
  provider.proxy = true;
  return provider;
}
