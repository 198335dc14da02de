import { type Kysely, sql } from 'kysely';
import { decryptSecret } from '../security/secretBox.ts';
import type { OAuthTables } from './oauthStoreTables.ts';

/**
 * The clients registered at the embedded authorization server, newest first (or the one `clientId`
 * names), each with the members it acts for (its live sign-ins' subjects): what `seqflow oauth
 * clients` and the console's Assistants view show.
 */
export async function listOAuthClients(db: Kysely<OAuthTables>, masterKey: Buffer, only?: { clientId: string }) {
  const clients = await clientsOf(db, masterKey, only);
  const subjects = await subjectsByClient(db, masterKey, clients.filter((c) => c.grants > 0).map((c) => c.clientId));
  return clients.map((client) => ({ ...client, subjects: subjects.get(client.clientId) ?? [] }));
}

async function clientsOf(db: Kysely<OAuthTables>, masterKey: Buffer, only?: { clientId: string }) {
  let query = db
    .selectFrom('oauth_store as c')
    .select(['c.client_id', 'c.payload', 'c.created_at', 'c.expires_at'])
    .select((eb) => eb.selectFrom('oauth_store as g').select(sql<string>`count(*)`.as('n')).where('g.model', '=', 'Grant').whereRef('g.client_id', '=', 'c.client_id').as('grants'))
    .where('c.model', '=', 'Client')
    .where((eb) => eb.or([eb('c.expires_at', 'is', null), eb('c.expires_at', '>', sql<Date>`now()`)]))
    .orderBy('c.created_at', 'desc');
  if (only) query = query.where('c.client_id', '=', only.clientId);
  const rows = await query.execute();
  const registered = rows.map((row) => {
    const metadata = JSON.parse(decryptSecret(row.payload, masterKey)) as { client_name?: string; redirect_uris?: string[] };
    return {
      clientId: row.client_id!,
      clientName: metadata.client_name ?? null,
      redirectUris: metadata.redirect_uris ?? [],
      registeredAt: new Date(row.created_at).toISOString(),
      // A client no one signed in with expires three hours after registering.
      signedIn: row.expires_at === null,
      grants: Number(row.grants ?? 0),
      metadataDocument: false,
    };
  });
  return [...registered, ...(await metadataDocumentClients(db, only))];
}

/**
 * Clients known by the URL of their metadata document (no registration is stored): those with a
 * sign-in, from their grants. Their name and redirect URIs are in the document, not here.
 */
async function metadataDocumentClients(db: Kysely<OAuthTables>, only?: { clientId: string }) {
  let query = db
    .selectFrom('oauth_store as g')
    .select(['g.client_id', sql<Date>`min(g.created_at)`.as('first'), sql<string>`count(*)`.as('grants')])
    .where('g.model', '=', 'Grant')
    .where('g.client_id', 'like', 'https://%')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('oauth_store as c').select('c.client_id').where('c.model', '=', 'Client').whereRef('c.client_id', '=', 'g.client_id'))))
    .groupBy('g.client_id')
    .orderBy('first', 'desc');
  if (only) query = query.where('g.client_id', '=', only.clientId);
  const rows = await query.execute();
  return rows.map((row) => ({ clientId: row.client_id!, clientName: null, redirectUris: [], registeredAt: new Date(row.first).toISOString(), signedIn: true, grants: Number(row.grants), metadataDocument: true }));
}

/** Everything the server keeps for a client (its registration, grants, codes, refresh tokens), deleted in one statement. */
export async function deleteOAuthClient(db: Kysely<OAuthTables>, clientId: string): Promise<void> {
  await db.deleteFrom('oauth_store').where('client_id', '=', clientId).execute();
}

/** The subjects of the live sign-ins (grants) of `clientIds`, sorted: a grant's payload is encrypted, read here only for this list. */
async function subjectsByClient(db: Kysely<OAuthTables>, masterKey: Buffer, clientIds: string[]) {
  const bySubject = new Map<string, Set<string>>();
  if (clientIds.length === 0) return new Map<string, string[]>();
  const grants = await db
    .selectFrom('oauth_store')
    .select(['client_id', 'payload'])
    .where('model', '=', 'Grant')
    .where('client_id', 'in', clientIds)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .execute();
  for (const grant of grants) {
    const { accountId } = JSON.parse(decryptSecret(grant.payload, masterKey)) as { accountId?: string };
    if (accountId) bySubject.set(grant.client_id!, (bySubject.get(grant.client_id!) ?? new Set()).add(accountId));
  }
  return new Map([...bySubject].map(([clientId, subjects]) => [clientId, [...subjects].sort()]));
}

/** The clients a member (one of `memberSubjects`) signed in with: an organization's assistants. */
export function clientsOfMembers<T extends { subjects: string[] }>(clients: T[], memberSubjects: ReadonlySet<string>): T[] {
  return clients.filter((client) => client.subjects.some((subject) => memberSubjects.has(subject)));
}
