import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { decryptSecret } from '../security/secretBox.ts';
import type { OAuthTables } from './oauthStoreTables.ts';
import { listOAuthClients } from './oauthClientQueries.ts';

/** What a pending sign-in asks, as its authorization request said it (oidc-provider's interaction params). */
export interface PendingSignIn {
  clientId: string;
  /** The client's name for itself, when it registered here (a metadata-document client's is in its document). */
  clientName: string | null;
  params: { client_id?: unknown; redirect_uri?: unknown; scope?: unknown; resource?: unknown };
  /** When the sign-in page stops accepting its approval (the interaction's end). */
  expiresAt: string;
}

/**
 * The pending sign-in whose page shows `requestCode` (the embedded authorization server keeps each
 * for ten minutes), or null. Read from the store the provider writes; its payload is decrypted here
 * only to show the console who asks.
 */
export async function findPendingSignIn(db: Kysely<OAuthTables>, masterKey: Buffer, requestCode: string): Promise<PendingSignIn | null> {
  const row = await db
    .selectFrom('oauth_store')
    .select(['payload', 'expires_at'])
    .where('model', '=', 'Interaction')
    .where('user_code_hash', '=', createHash('sha256').update(requestCode, 'utf8').digest('hex'))
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  if (!row) return null;
  const payload = JSON.parse(decryptSecret(row.payload, masterKey)) as { params?: PendingSignIn['params'] };
  const clientId = String(payload.params?.client_id ?? '');
  const [client] = clientId ? await listOAuthClients(db, masterKey, { clientId }) : [];
  return { clientId, clientName: client?.clientName ?? null, params: payload.params ?? {}, expiresAt: new Date(row.expires_at!).toISOString() };
}
