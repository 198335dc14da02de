import { hkdfSync } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

const SESSION_HOURS = 12;
export const SESSION_COOKIE = 'seqflow_console';

/**
 * The console's own sessions, opened by a one-time link: a JWT signed with a key derived from the
 * master key (HKDF, its own purpose label), so no session store is needed and every process of the
 * service accepts it. In it: `operator` (who redeemed which link) and when it opened (milliseconds:
 * `seqflow console revoke` ends every session opened before its instant).
 */
export function createConsoleSessions(masterKey: Buffer) {
  const key = new Uint8Array(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'seqflow console session v1', 32));
  return {
    issue: (operator: string, openedAtMs: number) =>
      new SignJWT({ kind: 'console-link', opened: openedAtMs }).setProtectedHeader({ alg: 'HS256' }).setSubject(operator).setIssuedAt(Math.floor(openedAtMs / 1000)).setExpirationTime(Math.floor(openedAtMs / 1000) + SESSION_HOURS * 3600).sign(key),
    /** The operator of a well-signed, unexpired session token and when it opened, or null. */
    async verify(token: string): Promise<{ operator: string; openedAtMs: number } | null> {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
        return payload.kind === 'console-link' && payload.sub && typeof payload.opened === 'number' ? { operator: payload.sub, openedAtMs: payload.opened } : null;
      } catch {
        return null;
      }
    },
    maxAgeSeconds: SESSION_HOURS * 3600,
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;
