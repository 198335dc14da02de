import type Provider from 'oidc-provider';
import type { Config } from '../../config/config.ts';
import { createJwtVerifier } from '../auth/jwtVerifier.ts';
import { createEmbeddedAuthorizationServer } from './embeddedAuthorizationServer.ts';
import type { Kysely } from 'kysely';
import type { ReadModels } from '../../projections/readModelSchema.ts';
import { type OAuthKeys, loadOrCreateOAuthKeys } from './oauthKeys.ts';
import { oauthTablesOf } from '../../queries/oauthStoreTables.ts';
import { countUnusedClients, postgresOAuthAdapter } from './postgresOAuthAdapter.ts';

/** A promise made on first call and kept; a failure is not kept, so the next call tries again. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make().catch((error: unknown) => {
    made = undefined;
    throw error;
  }));
}

/**
 * The embedded OAuth server of a service without OAUTH_ISSUER, and the verifier of the tokens it
 * issues (its own public keys, no request; the grant each names must still exist): both made on
 * first use. Its keys and state are in the database, shared by every API process. Its tokens are for the MCP endpoint or, asked with `resource` = the public URL, for the
 * REST API (the verifier's default audience).
 */
export function createEmbeddedOAuth(config: Config, embedded: { issuer: string }, store: { db: Kysely<ReadModels>; masterKey: Buffer }) {
  const db = oauthTablesOf(store.db);
  const keys: () => Promise<OAuthKeys> = once(() => loadOrCreateOAuthKeys(db, store.masterKey));
  const provider: () => Promise<Provider> = once(async () =>
    createEmbeddedAuthorizationServer({
      issuer: embedded.issuer,
      resources: { mcp: config.mcp.resource, api: config.publicUrl },
      keys: await keys(),
      adapter: postgresOAuthAdapter(db, store.masterKey),
      idleSeconds: config.oauthIdleDays * 86_400,
      secureCookies: config.publicUrl.startsWith('https:'),
      trustProxy: config.trustProxy,
    }),
  );
  const verifier = createJwtVerifier({
    issuer: embedded.issuer,
    audience: config.publicUrl,
    jwksUrl: undefined,
    localKeys: async () => (await keys()).publicJwks,
    grantIsLive: async (grantId) => (await (await provider()).Grant.find(grantId)) !== undefined,
  });
  return { provider, verifier, unusedClients: () => countUnusedClients(db) };
}
