import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the embedded authorization server\'s store and keys.';

/**
 * The embedded authorization server's state, shared by every API process and kept across restarts:
 * registered clients, grants, sessions, interactions, codes and refresh tokens (`oauth_store`, one
 * row per oidc-provider model and id), and its keys (`oauth_keys`). Not a projection: the log
 * records who registered and who revoked, and these rows are the provider's working state. Ids are
 * bearer credentials (a refresh token's id is the token), so only their SHA-256 is stored, and every
 * payload and key is encrypted with the master key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE oauth_store (
      model text NOT NULL,
      id_hash text NOT NULL,
      payload jsonb NOT NULL,
      grant_hash text,
      uid_hash text,
      user_code_hash text,
      client_id text,
      expires_at timestamptz,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (model, id_hash)
    )`.execute(db);
  await sql`CREATE INDEX oauth_store_by_grant ON oauth_store (grant_hash) WHERE grant_hash IS NOT NULL`.execute(db);
  await sql`CREATE INDEX oauth_store_by_uid ON oauth_store (model, uid_hash) WHERE uid_hash IS NOT NULL`.execute(db);
  await sql`CREATE INDEX oauth_store_by_user_code ON oauth_store (model, user_code_hash) WHERE user_code_hash IS NOT NULL`.execute(db);
  await sql`CREATE INDEX oauth_store_by_client ON oauth_store (client_id, model) WHERE client_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX oauth_store_by_expiry ON oauth_store (expires_at) WHERE expires_at IS NOT NULL`.execute(db);
  await sql`
    CREATE TABLE oauth_keys (
      kid text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('signing', 'cookie')),
      secret jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}
