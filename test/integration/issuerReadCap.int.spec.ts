import { createServer } from 'node:http';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtVerifier } from '../../src/api/auth/jwtVerifier.ts';
import { createAddressGuard } from '../../src/outbound/addressGuard.ts';
import { CAPPED_READ_SENT_BOUND, streamHugeBody } from '../support/hugeBody.ts';

/**
 * The token issuer is reached as every outbound URL is: through the address guard, its answers
 * capped. An issuer whose key set is 30 MB is read only up to the cap; one on an address the guard
 * refuses is not reached at all. Either way the token is refused.
 */
describe("the token issuer's answers are read through the guard, up to a cap", () => {
  const sent = { bytes: 0 };
  const server = createServer((_req, res) => void streamHugeBody(res, 30 * (1 << 20), sent));
  let url: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  const tokenOf = async (issuer: string) => {
    const { privateKey } = await generateKeyPair('RS256');
    return new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer).setAudience('seqflow').setExpirationTime('5m').sign(privateKey);
  };
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a token whose issuer answers a 30 MB key set, having read only about its cap of it', async () => {
    const verify = createJwtVerifier({ issuer: url, audience: 'seqflow', jwksUrl: `${url}/jwks.json` }, createAddressGuard({ allowCidrs: ['127.0.0.0/8'] }));
    await expect(verify(await tokenOf(url))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(sent.bytes).toBeGreaterThan(0);
    expect(sent.bytes).toBeLessThan(CAPPED_READ_SENT_BOUND);
  });

  it('does not reach an issuer on an address the guard refuses (no SEQFLOW_OUTBOUND_ALLOW_CIDRS), and says why', async () => {
    const before = sent.bytes;
    const verify = createJwtVerifier({ issuer: url, audience: 'seqflow', jwksUrl: undefined }, createAddressGuard());
    await expect(verify(await tokenOf(url))).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringMatching(/127\.0\.0\.1.*loopback/) });
    expect(sent.bytes).toBe(before);
  });
});
