import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { decryptSecret, encryptSecret } from '../../security/secretBox.ts';
import type { OAuthTables } from '../../queries/oauthStoreTables.ts';
import { signInRequestCode } from '../../domain/signIn/signInRequestCode.ts';

const hashOf = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
/** Expired rows are deleted now and then by the writes themselves: one in this many. */
const SWEEP_EVERY = 200;
/**
 * A registered client that no member has signed in with yet expires after three hours (an assistant
 * signs in right after it registers); one with a grant stays until revoked. So a flood of anonymous
 * registrations fades away and never pushes out a client in use.
 */
const UNUSED_CLIENT_SECONDS = 3 * 3600;
/**
 * How long a rotated refresh token still works (RFC 9700 §4.14.2 allows a grace): several sessions
 * of one assistant (Claude Code, Codex, opencode share one credential) refresh at once, or one
 * refreshes with the token another has just rotated. Within the grace, presenting it again rotates
 * it again: that session gets a successor of its own and none is lost. After it, a presented spent
 * token is a reuse: the provider ends the whole sign-in (OAuthSignInEnded).
 */
export const REFRESH_REUSE_GRACE_SECONDS = 60;

/**
 * oidc-provider's storage in PostgreSQL (`oauth_store`), so every API process shares the clients,
 * grants, sessions and refresh tokens, and a restart keeps them. One instance per model name, as
 * the provider asks. Ids, uids and grant ids are stored as SHA-256 (an id may be the bearer token
 * itself); payloads are encrypted with the master key. Expiry is checked on read; expired rows are
 * swept by later writes.
 */
export function postgresOAuthAdapter(db: Kysely<OAuthTables>, masterKey: Buffer): new (model: string) => Adapter {
  let writes = 0;

  async function sweepNowAndThen() {
    if (++writes % SWEEP_EVERY !== 0) return;
    await db.deleteFrom('oauth_store').where('expires_at', '<', sql<Date>`now()`).execute();
  }

  return class PostgresOAuthAdapter implements Adapter {
    private readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
      const row = {
        model: this.model,
        id_hash: hashOf(id),
        payload: encryptSecret(JSON.stringify(payload), masterKey),
        grant_hash: payload.grantId ? hashOf(payload.grantId) : null,
        uid_hash: payload.uid ? hashOf(payload.uid) : null,
        // An interaction (a sign-in page) is found by the request code its page shows, as a device flow's by its user code: the console approves it by that code.
        user_code_hash: this.model === 'Interaction' ? hashOf(signInRequestCode(id)) : payload.userCode ? hashOf(payload.userCode) : null,
        client_id: this.model === 'Client' ? id : (payload.clientId ?? null),
        expires_at: this.model === 'Client' ? sql<Date>`now() + make_interval(secs => ${UNUSED_CLIENT_SECONDS})` : expiresIn ? sql<Date>`now() + make_interval(secs => ${expiresIn})` : null,
      };
      await db
        .insertInto('oauth_store')
        .values(row as never)
        .onConflict((oc) =>
          oc.columns(['model', 'id_hash']).doUpdateSet({
            payload: row.payload,
            grant_hash: row.grant_hash,
            uid_hash: row.uid_hash,
            user_code_hash: row.user_code_hash,
            client_id: row.client_id,
            // A client keeps the expiry it has (none once used).
            ...(this.model === 'Client' ? {} : { expires_at: row.expires_at as never }),
          }),
        )
        .execute();
      if (this.model === 'Grant' && payload.clientId) {
        await db.updateTable('oauth_store').set({ expires_at: null }).where('model', '=', 'Client').where('client_id', '=', payload.clientId).where('expires_at', 'is not', null).execute();
      }
      await sweepNowAndThen();
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return this.findWhere('id_hash', hashOf(id));
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findWhere('uid_hash', hashOf(uid));
    }

    findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findWhere('user_code_hash', hashOf(userCode));
    }

    /** Only the first consumption counts (a conditional update): concurrent rotations of one token all date its grace from the first. */
    async consume(id: string): Promise<void> {
      await db.updateTable('oauth_store').set({ consumed_at: sql<Date>`now()` as never }).where('model', '=', this.model).where('id_hash', '=', hashOf(id)).where('consumed_at', 'is', null).execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oauth_store').where('model', '=', this.model).where('id_hash', '=', hashOf(id)).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oauth_store').where('model', '=', this.model).where('grant_hash', '=', hashOf(grantId)).execute();
    }

    private async findWhere(column: 'id_hash' | 'uid_hash' | 'user_code_hash', value: string): Promise<AdapterPayload | undefined> {
      const row = await db
        .selectFrom('oauth_store')
        .select(['payload', sql<number | null>`extract(epoch from consumed_at)::bigint`.as('consumed'), sql<boolean>`coalesce(consumed_at > now() - make_interval(secs => ${REFRESH_REUSE_GRACE_SECONDS}), false)`.as('in_grace')])
        .where('model', '=', this.model)
        .where(column, '=', value)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
        .executeTakeFirst();
      if (!row) return undefined;
      const payload = JSON.parse(decryptSecret(row.payload, masterKey)) as AdapterPayload;
      // A refresh token rotated moments ago is still its holder's (the grace above); any other consumed row reads as consumed.
      if (row.consumed === null || (this.model === 'RefreshToken' && row.in_grace)) return payload;
      return { ...payload, consumed: Number(row.consumed) };
    }
  };
}

/**
 * Room for one more registration: the oldest registrations no member has signed in with, beyond
 * `max - 1` of them, are deleted (a client in use is never touched). A flood of registrations from
 * many addresses then evicts itself instead of refusing everyone's new assistant.
 */
export async function makeRoomForRegistration(db: Kysely<OAuthTables>, max: number): Promise<number> {
  const result = await sql`
    DELETE FROM oauth_store WHERE model = 'Client' AND id_hash IN (
      SELECT id_hash FROM oauth_store WHERE model = 'Client' AND expires_at IS NOT NULL
      ORDER BY expires_at DESC OFFSET ${Math.max(0, max - 1)})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
