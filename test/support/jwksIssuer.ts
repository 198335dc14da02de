import { createServer, type Server } from 'node:http';
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';

export interface JwksIssuer {
  issuer: string;
  jwksUrl: string;
  /** A token of this issuer (RS256, its published key). */
  sign(claims: { sub?: string; aud: string; iss?: string; expiresIn?: string; clientId?: string; scope?: string }): Promise<string>;
  /** Tokens that must never be accepted, each named by what is wrong with it. */
  hostile(sub: string, aud: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/** An OAuth issuer's signing side: its public key served as a JWKS on loopback, and tokens signed with it. */
export async function startJwksIssuer(issuer = 'https://auth.seqflow.test/'): Promise<JwksIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const jwksUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks.json`;
  const claimsOf = <T extends SignJWT | UnsecuredJWT>(jwt: T, sub: string, aud: string): T => jwt.setIssuer(issuer).setAudience(aud).setSubject(sub).setIssuedAt() as T;

  return {
    issuer,
    jwksUrl,
    sign({ sub, aud, iss = issuer, expiresIn = '5m', clientId, scope }) {
      const jwt = new SignJWT({ ...(clientId ? { client_id: clientId } : {}), ...(scope ? { scope } : {}) }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(iss).setAudience(aud).setIssuedAt().setExpirationTime(expiresIn);
      return (sub ? jwt.setSubject(sub) : jwt).sign(privateKey);
    },
    async hostile(sub, aud) {
      return {
        'alg none': claimsOf(new UnsecuredJWT({}), sub, aud).setExpirationTime('5m').encode(),
        // The classic confusion: the issuer's public key used as an HMAC secret.
        'HS256 keyed with the public key': await claimsOf(new SignJWT({}), sub, aud).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).setExpirationTime('5m').sign(new TextEncoder().encode(await exportSPKI(publicKey))),
        'a key not in the JWKS': await claimsOf(new SignJWT({}), sub, aud).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setExpirationTime('5m').sign(stranger.privateKey),
        'no exp': await claimsOf(new SignJWT({}), sub, aud).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey),
        expired: await claimsOf(new SignJWT({}), sub, aud).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setExpirationTime(Math.floor(Date.now() / 1000) - 120).sign(privateKey),
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
