import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { createJwtVerifier } from '../../src/api/auth/jwtVerifier.ts';

describe('a bearer token', () => {
  it('is refused when it is bound to a key (cnf, as DPoP and mTLS bind tokens): its proof is not checked here, so it is never taken without one', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const verify = createJwtVerifier({ issuer: 'https://issuer.example', audience: 'seqflow', jwksUrl: undefined, localKeys: async () => ({ keys: [jwk] }) }, { fetch: () => Promise.reject(new Error('no requests here')) });
    const token = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://issuer.example').setAudience('seqflow').setSubject('alice').setExpirationTime('1h').sign(privateKey);
    await expect(verify(await token({}))).resolves.toMatchObject({ subject: 'alice' });
    await expect(verify(await token({ cnf: { jkt: 'thumbprint' } }))).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'Invalid token: it is bound to a key (cnf): this service takes bearer tokens only' });
  });
});
