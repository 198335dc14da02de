import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { apiKey } from '../../domain/apiKeys/apiKey.ts';
import { apiKeyStream } from '../../domain/apiKeys/apiKeyEvents.ts';
import { parseApiKey, verifyApiKeySecret } from '../../domain/apiKeys/apiKeyFormat.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import { loadStream } from '../../eventstore/streams.ts';
import type { EventStore } from '../../eventstore/eventStore.ts';
import type { ReadModels } from '../../projections/readModelSchema.ts';
import type { LogWatch } from '../../caches/logWatch.ts';

export interface ApiKeyPrincipal {
  keyId: string;
  projectId: string;
  organizationId: string;
  environment: 'live' | 'test';
}

// Compared against when the key id is unknown, so unknown and wrong keys take the same time.
const DUMMY_HASH = '0'.repeat(64);
const unauthenticated = (message: string) => new ApiError('UNAUTHENTICATED', message);

/**
 * Verifies `Authorization: Bearer <key>`. The read model answers; a key created a moment ago that
 * the projection has not reached yet is found by folding its own stream, so a fresh key works at once.
 * A key the read model still calls active is checked against its own stream for a revocation (one
 * indexed read of at most one event: a key's stream is created, then revoked, nothing else), unless
 * the log watch vouches for it (see below): a revocation is then refused at once in the process that
 * wrote it, and in other processes as soon as their watch reads it.
 */
export function createApiKeyAuthenticator(db: Kysely<ReadModels>, eventStore: EventStore, logWatch: LogWatch) {
  // What a key's creation says never changes (its project, organization, environment and secret
  // hash): kept after the first lookup, bounded.
  const created = new LRUCache<string, { projectId: string; organizationId: string; environment: 'live' | 'test'; secretHash: string }>({ max: 10_000 });
  // Keys seen unrevoked while the log watch ran: a revocation since would have been told to us
  // (at once when this process wrote it), so they need no read per request. Forgotten whenever
  // the watch stops; `told` counts revocations, so a lookup that overlapped one is not kept.
  const active = new LRUCache<string, true>({ max: 10_000 });
  let told = 0;
  const unwatch = logWatch.watch({
    wants: (change) => change.type === 'ApiKeyRevoked',
    changed: (change) => {
      told++;
      active.delete((change.data as { keyId: string }).keyId);
    },
    reset: () => {
      told++;
      active.clear();
    },
  });
  const revokedInLog = async (keyId: string) => (await eventStore.readStream(apiKeyStream(keyId), { fromRevision: 1, maxCount: 1 })).some((e) => e.type === 'ApiKeyRevoked');

  async function lookup(keyId: string) {
    const known = created.get(keyId);
    if (known && logWatch.live && active.has(keyId)) return { ...known, revoked: false };
    const before = told;
    const found = known ? { ...known, revoked: await revokedInLog(keyId) } : await firstLookup(keyId);
    if (!found) return undefined;
    created.set(keyId, { projectId: found.projectId, organizationId: found.organizationId, environment: found.environment, secretHash: found.secretHash });
    if (!found.revoked && logWatch.live && told === before) active.set(keyId, true);
    return found;
  }

  async function firstLookup(keyId: string) {
    const row = await db
      .selectFrom('api_keys')
      .select(['key_id', 'project_id', 'organization_id', 'environment', 'secret_hash', 'revoked_at'])
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    if (row) {
      const revoked = row.revoked_at !== null || (await revokedInLog(keyId));
      return { projectId: row.project_id, organizationId: row.organization_id, environment: row.environment, secretHash: row.secret_hash, revoked };
    }
    const { state } = await loadStream(eventStore, apiKeyStream(keyId), apiKey);
    if (state.status === 'none') return undefined;
    return { projectId: state.projectId, organizationId: state.organizationId, environment: state.environment, secretHash: state.secretHash, revoked: state.status === 'revoked' };
  }

  async function authenticate(authorization: string | undefined): Promise<ApiKeyPrincipal> {
    if (!authorization) throw unauthenticated('Missing Authorization header: send `Authorization: Bearer <API key>`');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthenticated('Malformed Authorization header: expected `Bearer <API key>`');
    const parsed = parseApiKey(match[1]!);
    if (!parsed) throw unauthenticated('Malformed API key');
    const stored = await lookup(parsed.keyId);
    const secretMatches = verifyApiKeySecret(parsed.secret, stored?.secretHash ?? DUMMY_HASH);
    if (!stored || !secretMatches || stored.environment !== parsed.environment) throw unauthenticated('Invalid API key');
    if (stored.revoked) throw new ApiError('API_KEY_REVOKED', 'This API key has been revoked');
    return { keyId: parsed.keyId, projectId: stored.projectId, organizationId: stored.organizationId, environment: stored.environment };
  }
  /** `close` stops watching the log (when the server closes). */
  return Object.assign(authenticate, { close: unwatch });
}

export type ApiKeyAuthenticator = ReturnType<typeof createApiKeyAuthenticator>;
