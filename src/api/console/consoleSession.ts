import { hkdfSync } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

const SESSION_HOURS = 12;
export const SESSION_COOKIE = 'seqflow_console';

/**
 * The console's own sessions, opened by a one-time link: a JWT signed with a key derived from the
 * master key (HKDF, its own purpose label), so no session store is needed and every process of the
 * service accepts it. Only `operator` (who redeemed which link) is in it.
 */
export function createConsoleSessions(masterKey: Buffer) {
  const key = new Uint8Array(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'seqflow console session v1', 32));
  return {
    issue: (operator: string) => new SignJWT({ kind: 'console-link' }).setProtectedHeader({ alg: 'HS256' }).setSubject(operator).setIssuedAt().setExpirationTime(`${SESSION_HOURS}h`).sign(key),
    /** The operator of a valid session token, or null. */
    async verify(token: string): Promise<string | null> {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
        return payload.kind === 'console-link' ? (payload.sub ?? null) : null;
      } catch {
        return null;
      }
    },
    maxAgeSeconds: SESSION_HOURS * 3600,
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;
