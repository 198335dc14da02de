import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { StoredOAuth } from '../../domain/blocks/llm/storedOAuth.ts';

/** Why a server's OAuth failed for good: nobody is here to sign in again. */
export const SIGN_IN_AGAIN = 'the stored OAuth tokens were refused and could not be refreshed: authorize the service again and store the new tokens (seqflow secret set)';

/**
 * The MCP SDK's OAuth client, run on stored tokens (an `mcp` server tool's `oauth.tokens`): the
 * SDK's transport sends the access token, and on a 401 its `auth()` discovers the server's
 * authorization server and asks for new tokens. There is no browser here, so that request is always
 * the refresh grant (`prepareTokenRequest`: the SDK's non-interactive flow, its client
 * authentication and errors), and an authorization it would start instead fails the call
 * (SIGN_IN_AGAIN). New tokens are handed to `save` (a new version of the secret) before they are
 * used, so a process that dies after a refresh leaves the rotated refresh token stored.
 */
export function storedOAuthProvider(stored: StoredOAuth, save: (state: StoredOAuth) => Promise<void>): OAuthClientProvider {
  let state = stored;
  let discovery: OAuthDiscoveryState | undefined;
  const metadata: OAuthClientMetadata = { client_name: 'Seqflow', redirect_uris: [], grant_types: ['refresh_token'] };
  return {
    get redirectUrl() {
      return undefined;
    },
    get clientMetadata() {
      return metadata;
    },
    clientInformation: () => state.client,
    tokens: () => state.tokens as OAuthTokens,
    async saveTokens(tokens) {
      // A server that does not rotate refresh tokens answers without one: the stored one stays good.
      state = { ...state, tokens: { ...tokens, refresh_token: tokens.refresh_token ?? state.tokens.refresh_token } };
      await save(state);
    },
    prepareTokenRequest: () => (state.tokens.refresh_token ? new URLSearchParams({ grant_type: 'refresh_token', refresh_token: state.tokens.refresh_token }) : undefined),
    redirectToAuthorization: () => {
      throw new Error(SIGN_IN_AGAIN);
    },
    saveCodeVerifier: () => undefined,
    codeVerifier: () => {
      throw new Error(SIGN_IN_AGAIN);
    },
    saveDiscoveryState: (found) => {
      discovery = found;
    },
    discoveryState: () => discovery,
  };
}
