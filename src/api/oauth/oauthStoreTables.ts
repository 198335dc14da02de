import type { ColumnType, Generated } from 'kysely';
import type { EncryptedSecret } from '../../domain/organizations/organizationEvents.ts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** One oidc-provider model instance (a client, grant, session, code, refresh token…): migration 0015. */
export interface OAuthStoreTable {
  model: string;
  id_hash: string;
  payload: EncryptedSecret;
  grant_hash: string | null;
  uid_hash: string | null;
  user_code_hash: string | null;
  client_id: string | null;
  expires_at: Timestamp | null;
  consumed_at: Timestamp | null;
  created_at: Generated<Timestamp>;
}

export interface OAuthKeysTable {
  kid: string;
  kind: 'signing' | 'cookie';
  secret: EncryptedSecret;
  created_at: Generated<Timestamp>;
}

export type OAuthTables = {
  oauth_store: OAuthStoreTable;
  oauth_keys: OAuthKeysTable;
};
