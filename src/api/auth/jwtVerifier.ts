import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ApiError } from '../../domain/errors/apiError.ts';

/** Asymmetric algorithms only: a token signed with a shared secret (HS*) or `none` is never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * Verifies OAuth-issued JWTs (OAUTH_ISSUER / OAUTH_AUDIENCE / JWKS): signature against the issuer's
 * keys, `iss`, `aud`, `exp` (required) and `nbf`, and an algorithm allow-list. The JWKS address comes from
 * OAUTH_JWKS_URL, else from the issuer's metadata (`/.well-known/openid-configuration`).
 */
export function createJwtVerifier(oauth: { issuer: string; audience: string | undefined; jwksUrl: string | undefined }) {
  let keySet: ReturnType<typeof createRemoteJWKSet> | undefined;

  async function keys() {
    if (keySet) return keySet;
    let jwksUrl = oauth.jwksUrl;
    if (!jwksUrl) {
      const metadata = await fetch(new URL('.well-known/openid-configuration', oauth.issuer.endsWith('/') ? oauth.issuer : `${oauth.issuer}/`));
      jwksUrl = ((await metadata.json()) as { jwks_uri?: string }).jwks_uri;
      if (!jwksUrl) throw new Error(`the issuer ${oauth.issuer} publishes no jwks_uri`);
    }
    return (keySet = createRemoteJWKSet(new URL(jwksUrl)));
  }

  return async function verify(token: string): Promise<{ subject: string }> {
    try {
      // `exp` is required: a token without one would never expire.
      const { payload } = await jwtVerify(token, await keys(), { issuer: oauth.issuer, ...(oauth.audience ? { audience: oauth.audience } : {}), algorithms: ALGORITHMS, requiredClaims: ['exp'] });
      if (!payload.sub) throw new Error('no sub claim');
      return { subject: payload.sub };
    } catch (error) {
      throw new ApiError('UNAUTHENTICATED', `Invalid token: ${(error as Error).message}`);
    }
  };
}

export type JwtVerifier = ReturnType<typeof createJwtVerifier>;
