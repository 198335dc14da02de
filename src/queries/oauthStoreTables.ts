import type { ColumnType, Generated, Kysely } from 'kysely';
import type { EncryptedSecret } from '../domain/organizations/organizationEvents.ts';

/** A timestamp the store writes as an SQL expression or leaves empty. */
type OptionalTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;

/** One oidc-provider model instance (a client, grant, session, code, refresh token…): migration 0015. */
export interface OAuthStoreTable {
  model: string;
  id_hash: string;
  payload: EncryptedSecret;
  grant_hash: string | null;
  uid_hash: string | null;
  user_code_hash: string | null;
  client_id: string | null;
  expires_at: OptionalTimestamp;
  consumed_at: OptionalTimestamp;
  created_at: Generated<Date>;
}

export interface OAuthKeysTable {
  kid: string;
  kind: 'signing' | 'cookie';
  secret: EncryptedSecret;
  created_at: Generated<Date>;
}

export type OAuthTables = {
  oauth_store: OAuthStoreTable;
  oauth_keys: OAuthKeysTable;
};

/** The same pool, seeing only the embedded server's own tables (read-model migration 0015). */
export const oauthTablesOf = <DB>(db: Kysely<DB>): Kysely<OAuthTables> => db.withTables<OAuthTables>() as unknown as Kysely<OAuthTables>;
