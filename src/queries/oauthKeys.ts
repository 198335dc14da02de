import { randomBytes } from 'node:crypto';
import { type JWK, exportJWK, generateKeyPair } from 'jose';
import { type Kysely, sql } from 'kysely';
import { decryptSecret, encryptSecret } from '../security/secretBox.ts';
import type { OAuthTables } from './oauthStoreTables.ts';

/** One process at a time makes the first keys, so every process signs and verifies with the same. */
const KEYS_LOCK = sql`pg_advisory_xact_lock(hashtext('seqflow oauth keys'))`;

export type SigningKey = JWK & { kid: string; kty: 'EC'; crv: 'P-256'; x: string; y: string };

export interface OAuthKeys {
  /** The private signing keys (ES256 JWKs) of the embedded authorization server, newest first: it signs with the first. */
  signing: SigningKey[];
  /** Their public halves, as the JWKS tokens are verified with. */
  publicJwks: { keys: JWK[] };
  /** Keys that sign the sign-in flow's cookies, newest first. */
  cookieKeys: string[];
}

export async function newSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' } as SigningKey;
}

/**
 * The embedded authorization server's keys, in the database (`oauth_keys`, encrypted with the master
 * key): every API process signs and verifies with the same keys, and a restart keeps them. The first
 * process to need them makes them, under a lock.
 */
export async function loadOrCreateOAuthKeys(db: Kysely<OAuthTables>, masterKey: Buffer): Promise<OAuthKeys> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT ${KEYS_LOCK}`.execute(trx);
    const kinds = new Set((await trx.selectFrom('oauth_keys').select('kind').execute()).map((row) => row.kind));
    const missing: { kid: string; kind: 'signing' | 'cookie'; secret: string }[] = [];
    if (!kinds.has('signing')) {
      const key = await newSigningKey();
      missing.push({ kid: key.kid, kind: 'signing', secret: JSON.stringify(key) });
    }
    if (!kinds.has('cookie')) missing.push({ kid: randomBytes(8).toString('hex'), kind: 'cookie', secret: randomBytes(32).toString('base64url') });
    if (missing.length > 0) await trx.insertInto('oauth_keys').values(missing.map((key) => ({ ...key, secret: encryptSecret(key.secret, masterKey) }))).execute();
  });
  const rows = await db.selectFrom('oauth_keys').select(['kind', 'secret']).orderBy('created_at', 'desc').orderBy('kid').execute();
  const signing = rows.filter((row) => row.kind === 'signing').map((row) => JSON.parse(decryptSecret(row.secret, masterKey)) as SigningKey);
  const cookieKeys = rows.filter((row) => row.kind === 'cookie').map((row) => decryptSecret(row.secret, masterKey));
  return { signing, publicJwks: { keys: signing.map(({ d: _private, ...publicKey }) => publicKey) }, cookieKeys };
}

/** The signing keys stored, newest first, without their secrets: which signs, and since when. */
export async function storedSigningKeys(db: Kysely<OAuthTables>): Promise<{ kid: string; createdAt: Date }[]> {
  const rows = await db.selectFrom('oauth_keys').select(['kid', 'created_at']).where('kind', '=', 'signing').orderBy('created_at', 'desc').orderBy('kid').execute();
  return rows.map((row) => ({ kid: row.kid, createdAt: row.created_at }));
}

/**
 * Makes `key` the one that signs (the newest) and deletes the retired keys, in one transaction under
 * the keys' lock. Its `created_at` is the database's clock, as the other keys' are.
 */
export async function storeRotatedSigningKey(db: Kysely<OAuthTables>, masterKey: Buffer, key: SigningKey, retiredKids: string[]) {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT ${KEYS_LOCK}`.execute(trx);
    await trx.insertInto('oauth_keys').values({ kid: key.kid, kind: 'signing', secret: encryptSecret(JSON.stringify(key), masterKey) }).onConflict((oc) => oc.column('kid').doNothing()).execute();
    if (retiredKids.length > 0) await trx.deleteFrom('oauth_keys').where('kind', '=', 'signing').where('kid', 'in', retiredKids).execute();
  });
}
