import { createServer } from 'node:http';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtVerifier } from '../../src/api/auth/jwtVerifier.ts';
import { streamHugeBody } from '../support/hugeBody.ts';

/** An issuer whose key set is 30 MB: the service reads it only up to its cap, and the token is refused. */
describe("the token issuer's answers are read up to a cap", () => {
  const sent = { bytes: 0 };
  const server = createServer((_req, res) => void streamHugeBody(res, 30 * (1 << 20), sent));
  let url: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a token whose issuer answers a 30 MB key set, having read only about its cap of it', async () => {
    const verify = createJwtVerifier({ issuer: url, audience: 'seqflow', jwksUrl: `${url}/jwks.json` });
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(url).setAudience('seqflow').setExpirationTime('5m').sign(privateKey);
    await expect(verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(sent.bytes).toBeGreaterThan(0);
    expect(sent.bytes).toBeLessThan(4 * (1 << 20));
  });
});
