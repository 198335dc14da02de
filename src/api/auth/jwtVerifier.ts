import { type JSONWebKeySet, createLocalJWKSet, createRemoteJWKSet, customFetch, errors, jwtVerify } from 'jose';
import { type Fetch, cappedReplies } from '../../outbound/cappedReply.ts';
import { ApiError } from '../../domain/errors/apiError.ts';

/** What the service reads from the token issuer (its metadata, its key set), up to 1 MiB: a larger answer is cut, not read into memory. */
const ISSUER_READ_MAX_BYTES = 1024 * 1024;

/** Asymmetric algorithms only: a token signed with a shared secret (HS*) or `none` is never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/**
 * Local keys are read again when a token names an unknown key (a rotation); after a read that did
 * not find it, not again for this long: forged key ids cannot make every request a read.
 */
const FRUITLESS_RELOAD_PAUSE_MS = 1000;

/**
 * Verifies OAuth-issued JWTs (OAUTH_ISSUER / OAUTH_AUDIENCE / JWKS): signature against the issuer's
 * keys, `iss`, `aud`, `exp` (required) and `nbf`, and an algorithm allow-list. The JWKS address comes from
 * OAUTH_JWKS_URL, else from the issuer's metadata (`/.well-known/openid-configuration`). Both are
 * read through `fetch`, the outbound address guard's, like every URL the service reaches (a
 * `jwks_uri` in the metadata is the issuer's word, not the operator's), each answer capped.
 */
export function createJwtVerifier(
  oauth: {
  issuer: string;
  audience: string | undefined;
  jwksUrl: string | undefined;
  /** The embedded issuer's own keys, read without a request; asked again when a token names a key not among them. */
  localKeys?: () => Promise<JSONWebKeySet>;
  /**
   * The embedded issuer's grants: a token must name its grant (`grant_id`) and the grant must still
   * exist. A JWT cannot be recalled, so revoking the grant (or using its code twice) refuses it here.
   */
  grantIsLive?: (grantId: string) => Promise<boolean>;
  },
  outbound: { fetch: Fetch },
) {
  const issuerFetch = cappedReplies(outbound.fetch, ISSUER_READ_MAX_BYTES);
  let keySet: ReturnType<typeof createRemoteJWKSet> | ReturnType<typeof createLocalJWKSet> | undefined;
  let fruitlessReloadAt = 0;

  async function keys() {
    if (keySet) return keySet;
    if (oauth.localKeys) return (keySet = createLocalJWKSet(await oauth.localKeys()));
    let jwksUrl = oauth.jwksUrl;
    if (!jwksUrl) {
      const metadata = await issuerFetch(new URL('.well-known/openid-configuration', oauth.issuer.endsWith('/') ? oauth.issuer : `${oauth.issuer}/`));
      jwksUrl = ((await metadata.json()) as { jwks_uri?: string }).jwks_uri;
      if (!jwksUrl) throw new Error(`the issuer ${oauth.issuer} publishes no jwks_uri`);
    }
    return (keySet = createRemoteJWKSet(new URL(jwksUrl), { [customFetch]: issuerFetch }));
  }

  /**
   * `audience` overrides OAUTH_AUDIENCE: the MCP endpoint accepts only tokens minted for itself.
   * `clientId` is the OAuth client the token was issued to (RFC 9068 `client_id`, else `azp`);
   * `scopes` its `scope` claim (RFC 9068), empty when it has none.
   */
  return async function verify(token: string, options: { audience?: string | string[] } = {}): Promise<{ subject: string; clientId: string | undefined; scopes: string[] }> {
    const audience = options.audience ?? oauth.audience;
    try {
      // `exp` is required: a token without one would never expire.
      const options = { issuer: oauth.issuer, ...(audience ? { audience } : {}), algorithms: ALGORITHMS, requiredClaims: ['exp'] };
      const { payload } = await jwtVerify(token, await keys(), options).catch(async (error: unknown) => {
        // A remote JWKS refetches by itself (jose, with a cooldown); local keys are read again here.
        if (!(error instanceof errors.JWKSNoMatchingKey) || !oauth.localKeys || Date.now() - fruitlessReloadAt < FRUITLESS_RELOAD_PAUSE_MS) throw error;
        keySet = undefined;
        return jwtVerify(token, await keys(), options).catch((again: unknown) => {
          if (again instanceof errors.JWKSNoMatchingKey) fruitlessReloadAt = Date.now();
          throw again;
        });
      });
      if (!payload.sub) throw new Error('no sub claim');
      // A sender-constrained token (DPoP, mTLS: RFC 9449 and 8705 `cnf`) is its holder's only with its proof, which this service does not check: never taken as a bearer token.
      if (payload.cnf !== undefined) throw new Error('it is bound to a key (cnf): this service takes bearer tokens only');
      if (oauth.grantIsLive && !(typeof payload.grant_id === 'string' && (await oauth.grantIsLive(payload.grant_id)))) throw new Error('its grant was revoked: sign in again');
      const clientId = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : undefined;
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
      return { subject: payload.sub, clientId, scopes };
    } catch (error) {
      throw new ApiError('UNAUTHENTICATED', `Invalid token: ${(error as Error).message}`);
    }
  };
}

export type JwtVerifier = ReturnType<typeof createJwtVerifier>;
