import type Provider from 'oidc-provider';
import type { Config } from '../../config/config.ts';
import { createJwtVerifier } from '../auth/jwtVerifier.ts';
import { createEmbeddedAuthorizationServer } from './embeddedAuthorizationServer.ts';
import { type OAuthKeys, loadOrCreateOAuthKeys } from './oauthKeys.ts';

/** A promise made on first call and kept; a failure is not kept, so the next call tries again. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make().catch((error: unknown) => {
    made = undefined;
    throw error;
  }));
}

/**
 * The embedded OAuth server of a service without OAUTH_ISSUER, and the verifier of the tokens it
 * issues (its own public key, no request): both made on first use.
 */
export function createEmbeddedOAuth(config: Config, embedded: { issuer: string }) {
  const keys: () => Promise<OAuthKeys> = once(() => loadOrCreateOAuthKeys(config.dataDir));
  const provider: () => Promise<Provider> = once(async () =>
    createEmbeddedAuthorizationServer({ issuer: embedded.issuer, resource: config.mcp.resource, keys: await keys(), secureCookies: config.publicUrl.startsWith('https:') }),
  );
  const verifier = createJwtVerifier({ issuer: embedded.issuer, audience: undefined, jwksUrl: undefined, localKeys: async () => (await keys()).publicJwks });
  return { provider, verifier };
}
