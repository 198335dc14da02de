import { cappedReplies } from '../../outbound/cappedReply.ts';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { recordOAuthSignInEnded } from '../../commands/oauthClientCommands.ts';
import type { Config } from '../../config/config.ts';
import { createJwtVerifier } from '../auth/jwtVerifier.ts';
import { createEmbeddedAuthorizationServer } from './embeddedAuthorizationServer.ts';
import type { Kysely } from 'kysely';
import type { ReadModels } from '../../projections/readModelSchema.ts';
import { loadOrCreateOAuthKeys, storedSigningKeys } from '../../queries/oauthKeys.ts';
import { oauthTablesOf } from '../../queries/oauthStoreTables.ts';
import { makeRoomForRegistration, postgresOAuthAdapter } from './postgresOAuthAdapter.ts';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { oauthClient } from '../../domain/oauth/oauthClient.ts';
import { oauthClientStream } from '../../domain/oauth/oauthClientEvents.ts';
import type { EventStore } from '../../eventstore/eventStore.ts';
import { loadStream } from '../../eventstore/streams.ts';
import type { AddressGuard } from '../../outbound/addressGuard.ts';

/** Client ID Metadata Documents one address may have fetched a minute: as many as it may register clients. */
const METADATA_FETCHES_PER_MINUTE = 20;
/** The most of a body the authorization server reads from a client's URL (a key set, a metadata document). */
const OAUTH_FETCH_MAX_BYTES = 256 * 1024;

/**
 * Answers read whole (they are capped small) before the provider sees them: a body cut at the cap
 * then fails the fetch itself, with the cap's error as the cause (the provider's own body reader
 * would lose it), so a sign-in page can say the document was too large.
 */
const readWhole = (fetch: (url: string | URL, init?: RequestInit) => Promise<Response>) => async (url: string | URL, init?: RequestInit) => {
  const response = await fetch(url, init);
  const body = await response.arrayBuffer();
  const bodiless = [101, 204, 205, 304].includes(response.status);
  return new Response(bodiless ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
};

/**
 * The embedded OAuth server of a service without OAUTH_ISSUER, and the verifier of the tokens it
 * issues (its own public keys, no request; the grant each names must still exist): both made on
 * first use. Its keys and state are in the database, shared by every API process. Its tokens are
 * for the MCP endpoint or, asked with `resource` = the public URL, for the REST API (the verifier's
 * default audience).
 *
 * A key rotation (`seqflow oauth rotate-keys`, from any process) is seen by each process at its next
 * request to the authorization server (one indexed read of the newest key's id: those requests are
 * few, a sign-in or a refresh an hour per assistant), which then signs with the new key; and by each
 * verifier when a token names a key it does not know.
 */
export function createEmbeddedOAuth(config: Config, embedded: { issuer: string }, store: { db: Kysely<ReadModels>; masterKey: Buffer; eventStore: EventStore; guard: AddressGuard; logger: Pick<Logger, 'warn' | 'error'> }) {
  const db = oauthTablesOf(store.db);
  const metadataFetches = new RateLimiterMemory({ points: METADATA_FETCHES_PER_MINUTE, duration: 60 });
  const metadataDocuments = {
    enabled: config.oauthClientMetadataDocuments,
    mayFetch: async (ip: string) => {
      try {
        await metadataFetches.consume(ip);
        return true;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return false;
        throw rejection;
      }
    },
    revoked: async (clientId: string) => (await loadStream(store.eventStore, oauthClientStream(clientId), oauthClient)).state.revoked,
  };
  const build = async () => {
    const keys = await loadOrCreateOAuthKeys(db, store.masterKey);
    const provider = createEmbeddedAuthorizationServer({
      issuer: embedded.issuer,
      resources: { mcp: config.mcp.resource, mcpReadOnly: config.mcp.readOnly.resource, api: config.publicUrl },
      keys,
      adapter: postgresOAuthAdapter(db, store.masterKey),
      idleSeconds: config.oauthIdleDays * 86_400,
      secureCookies: config.publicUrl.startsWith('https:'),
      trustProxy: config.trustProxy,
      // Clients' key sets and metadata documents are small: a larger answer is cut, not read into memory.
      fetch: readWhole(cappedReplies(store.guard.fetch, OAUTH_FETCH_MAX_BYTES)),
      metadataDocuments,
      logger: store.logger,
    });
    provider.on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => void recordSignInEnded(ctx, grantId));
    return { signingKid: keys.signing[0]?.kid, provider };
  };
  /** A grant the provider revoked (a reused refresh token or code, the client's own revocation): logged, and recorded for the client. */
  async function recordSignInEnded(ctx: KoaContextWithOIDC, grantId: string) {
    const clientId = ctx.oidc.client?.clientId;
    if (!clientId) return;
    const grantType = String(ctx.oidc.params?.grant_type ?? '');
    const reason = grantType === 'refresh_token' ? 'refresh_token_reuse' : grantType === 'authorization_code' ? 'authorization_code_reuse' : 'revoked_by_client';
    const subject = ctx.oidc.entities.Account?.accountId ?? ctx.oidc.entities.RefreshToken?.accountId ?? ctx.oidc.entities.AuthorizationCode?.accountId ?? null;
    store.logger.warn({ clientId, subject, reason, grantHash: createHash('sha256').update(grantId).digest('hex').slice(0, 16) }, 'an assistant sign-in ended: it must sign in again');
    try {
      await recordOAuthSignInEnded({ eventStore: store.eventStore, now: () => new Date() }, { clientId, subject, reason }, { principal: { kind: 'system', id: 'oauth' } });
    } catch (error) {
      store.logger.error({ err: error, clientId }, 'could not record the end of an assistant sign-in');
    }
  }
  let built: Promise<Awaited<ReturnType<typeof build>>> | undefined;
  /** Made on first call and kept; a failure is not kept, so the next call tries again. */
  const current = () => {
    const making = (built ??= build());
    making.catch(() => {
      if (built === making) built = undefined;
    });
    return making;
  };
  /** The provider, signing with the newest key: for requests to the authorization server. */
  const provider = async (): Promise<Provider> => {
    const made = current();
    const { signingKid } = await made;
    const [newest] = await storedSigningKeys(db);
    if (newest && newest.kid !== signingKid && built === made) built = undefined;
    return (await current()).provider;
  };
  const verifier = createJwtVerifier({
    issuer: embedded.issuer,
    audience: config.publicUrl,
    jwksUrl: undefined,
    // Read afresh each time: the verifier asks again when a token names a key it does not know.
    localKeys: async () => (await loadOrCreateOAuthKeys(db, store.masterKey)).publicJwks,
    grantIsLive: async (grantId) => (await (await current()).provider.Grant.find(grantId)) !== undefined,
  }, store.guard);
  return { provider, verifier, makeRoomForRegistration: async () => void (await makeRoomForRegistration(db, config.oauthMaxUnusedClients)) };
}
