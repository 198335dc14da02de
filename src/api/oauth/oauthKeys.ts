import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type JWK, exportJWK, generateKeyPair } from 'jose';
import { z } from 'zod';

const keyFileSchema = z.object({
  signing: z.object({ kty: z.literal('EC'), crv: z.literal('P-256'), d: z.string(), x: z.string(), y: z.string(), kid: z.string(), alg: z.literal('ES256'), use: z.literal('sig') }),
  cookieKeys: z.array(z.string().min(32)).min(1),
});

export interface OAuthKeys {
  /** The private signing key (ES256 JWK) of the embedded authorization server. */
  signing: JWK & { kid: string };
  /** Its public half, as the JWKS tokens are verified with. */
  publicJwks: { keys: JWK[] };
  /** Keys that sign the sign-in flow's cookies. */
  cookieKeys: string[];
}

/**
 * The embedded authorization server's keys, kept in the data folder (`oauth-keys.json`, readable by
 * the owner only): made on first use, the same after every restart, so tokens outlive one process.
 */
export async function loadOrCreateOAuthKeys(dataDir: string): Promise<OAuthKeys> {
  const file = path.join(dataDir, 'oauth-keys.json');
  let stored: z.infer<typeof keyFileSchema>;
  try {
    stored = keyFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file} is not a valid key file (${(error as Error).message}); move it away to make new keys`, { cause: error });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    stored = keyFileSchema.parse({ signing: { ...jwk, kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' }, cookieKeys: [randomBytes(32).toString('base64url')] });
    await mkdir(dataDir, { recursive: true });
    // `wx`: two processes starting at once do not overwrite each other's keys; the loser reads the winner's.
    await writeFile(file, JSON.stringify(stored, null, 2), { mode: 0o600, flag: 'wx' }).catch(async (writeError: NodeJS.ErrnoException) => {
      if (writeError.code !== 'EEXIST') throw writeError;
      stored = keyFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    });
  }
  const { d: _private, ...publicKey } = stored.signing;
  return { signing: stored.signing, publicJwks: { keys: [publicKey] }, cookieKeys: stored.cookieKeys };
}
