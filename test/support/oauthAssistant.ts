import { createHash, randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export const REDIRECT_URL = 'http://127.0.0.1:33418/callback';

/** What an assistant keeps between the steps of its OAuth flow (the SDK's OAuthClientProvider), in memory. */
export class AssistantAuth implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return REDIRECT_URL;
  }
  get clientMetadata() {
    return { client_name: 'Test Assistant', redirect_uris: [REDIRECT_URL], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.client = info);
  tokens = () => this.stored;
  saveTokens = (tokens: OAuthTokens) => void (this.stored = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

/** The member's browser: follows redirects by hand, keeps cookies, and submits the sign-in form. */
export class Browser {
  private cookies = new Map<string, string>();
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair!.split('=');
      this.cookies.set(name!.trim(), value.join('='));
    }
    return response;
  }
  /** Follows redirects from `url` until one leaves the server (the assistant's redirect URL, any scheme) or a page answers. */
  async follow(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const server = new URL(url).origin;
    let response = await this.request(url, init);
    let location = response.headers.get('location');
    while (location && new URL(location, url).origin === server) {
      response = await this.request(new URL(location, url).href);
      location = response.headers.get('location');
    }
    return { response, location: location ? new URL(location, url) : undefined };
  }
}


/**
 * An assistant's whole sign-in, as a member would go through it: the SDK's OAuth flow (discovery,
 * registration, PKCE), the sign-in page in a browser with `code`, then the token exchange.
 * Returns the assistant's stored state (its access token in `stored`).
 */
export async function signInAssistant(mcpUrl: string, code: string): Promise<AssistantAuth> {
  const auth = new AssistantAuth();
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth });
  await new Client({ name: 'test-assistant', version: '1.0.0' }).connect(transport).catch(() => undefined);
  if (!auth.authorizationUrl) throw new Error('the SDK did not ask for the sign-in page');
  const browser = new Browser();
  const page = await browser.follow(auth.authorizationUrl.href);
  const action = new URL(/action="([^"]+)"/.exec(await page.response.text())![1]!, auth.authorizationUrl).href;
  const signedIn = await browser.follow(action, { method: 'POST', form: { code } });
  const authorizationCode = signedIn.location?.searchParams.get('code');
  if (!authorizationCode) throw new Error(`sign-in failed: ${signedIn.response.status} ${signedIn.location?.href ?? ''}`);
  await transport.finishAuth(authorizationCode);
  return auth;
}

/**
 * A member's own OAuth client going through the authorization code flow by hand (registration, PKCE,
 * the sign-in page, the code): for tokens the SDK would not ask for (another `resource`, `offline_access`).
 * `exchange()` may be called twice, as an attacker replaying the code would.
 */
export async function authorizeByHand(
  origin: string,
  signInCode: string,
  ask: { resource: string; scope: string; /** Registered (default: REDIRECT_URL). */ redirectUris?: string[]; /** Used at sign-in (default: the first registered). */ redirectUri?: string },
) {
  const redirectUris = ask.redirectUris ?? [REDIRECT_URL];
  const redirectUri = ask.redirectUri ?? redirectUris[0]!;
  const registered = await fetch(`${origin}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Member Script', redirect_uris: redirectUris, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
  });
  if (registered.status !== 201) throw new Error(`registration: ${registered.status} ${await registered.text()}`);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${origin}/oauth/auth`);
  for (const [key, value] of Object.entries({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, scope: ask.scope, resource: ask.resource, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', prompt: 'consent' })) {
    authorize.searchParams.set(key, value);
  }
  const browser = new Browser();
  const page = await browser.follow(authorize.href);
  const action = new URL(/action="([^"]+)"/.exec(await page.response.text())![1]!, origin).href;
  const signedIn = await browser.follow(action, { method: 'POST', form: { code: signInCode } });
  const code = signedIn.location?.searchParams.get('code');
  if (!code) throw new Error(`sign-in failed: ${signedIn.response.status} ${signedIn.location?.href ?? (await signedIn.response.text()).replace(/\s+/g, ' ').slice(0, 600)}`);
  /** A token request, to this server or (`at`) another process of the same service. */
  const tokenRequest = async (form: Record<string, string>, at = origin, headers: Record<string, string> = {}) => {
    const answer = await fetch(`${at}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ client_id: clientId, ...form }).toString() });
    return { status: answer.status, body: (await answer.json()) as { access_token?: string; refresh_token?: string; token_type?: string; error?: string } };
  };
  return {
    clientId,
    /** Where the browser was sent back to, the code in its query. */
    returnedTo: signedIn.location!,
    exchange: (at?: string, headers?: Record<string, string>) => tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, resource: ask.resource }, at, headers),
    refresh: (refreshToken: string, at?: string) => tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, resource: ask.resource }, at),
    revoke: async (token: string) => (await fetch(`${origin}/oauth/token/revocation`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: clientId, token }).toString() })).status,
  };
}
