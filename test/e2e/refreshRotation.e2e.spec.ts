import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLoginCode } from '../../src/commands/loginCodeCommands.ts';
import { REFRESH_REUSE_GRACE_SECONDS } from '../../src/api/oauth/postgresOAuthAdapter.ts';
import { authorizeByHand } from '../support/oauthAssistant.ts';
import { type EmbeddedOAuthService, startEmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * Several sessions of one assistant share its credential (Claude Code, Codex, opencode): they refresh
 * at once, or one refreshes with a token another has just rotated. Within the reuse grace every
 * session stays signed in; a spent token presented after it ends the sign-in (RFC 9700), recorded.
 */
describe('refresh token rotation with a reuse grace', () => {
  let service: EmbeddedOAuthService;

  beforeAll(async () => {
    service = await startEmbeddedOAuthService('refresh_rotation', { alice: 'member' });
  });
  afterAll(async () => {
    await service?.close();
  });

  const signIn = async () => {
    const { code } = await issueLoginCode({ ...service.t.runtime.commands, db: service.t.runtime.db }, { subject: 'alice' }, testPrincipal);
    const flow = await authorizeByHand(service.origin, code, { resource: service.mcpUrl, scope: 'mcp' });
    const first = await flow.exchange();
    expect(first.status).toBe(200);
    return { flow, first: first.body as { access_token: string; refresh_token: string } };
  };
  const mcpStatus = async (token: string) =>
    (await fetch(service.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) })).status;
  /** As if the token had been rotated `seconds` ago: its stored first use moved back (no test waits a minute). */
  const rotatedAgo = (refreshToken: string, seconds: number) =>
    sql`UPDATE oauth_store SET consumed_at = now() - make_interval(secs => ${seconds}) WHERE model = 'RefreshToken' AND id_hash = ${createHash('sha256').update(refreshToken).digest('hex')}`.execute(service.t.runtime.db);
  const endings = async (clientId: string) => (await service.t.runtime.eventStore.readStream(`oauthclient-${clientId}`)).filter((e) => e.type === 'OAuthSignInEnded').map((e) => e.data);

  it('keeps five sessions refreshing with one token at once signed in, each with a successor of its own that refreshes again', async () => {
    const { flow, first } = await signIn();
    const answers = await Promise.all(Array.from({ length: 5 }, () => flow.refresh(first.refresh_token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const successors = answers.map((a) => a.body.refresh_token!);
    expect(new Set(successors).size).toBe(5);
    for (const answer of answers) expect(await mcpStatus(answer.body.access_token!)).toBe(200);
    for (const successor of successors) expect((await flow.refresh(successor)).status).toBe(200);
    expect(await endings(flow.clientId)).toEqual([]);
  });

  it('keeps a session signed in that refreshes with the spent token 5 s after another rotated it', async () => {
    const { flow, first } = await signIn();
    const rotated = await flow.refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    await rotatedAgo(first.refresh_token, 5);
    const stale = await flow.refresh(first.refresh_token);
    expect(stale.status).toBe(200);
    // Both sessions go on: the first one's successor and the late one's.
    expect((await flow.refresh(rotated.body.refresh_token!)).status).toBe(200);
    expect((await flow.refresh(stale.body.refresh_token!)).status).toBe(200);
  });

  it(`ends the sign-in when a spent token comes back after the grace (${REFRESH_REUSE_GRACE_SECONDS} s), and records why`, async () => {
    const { flow, first } = await signIn();
    const rotated = await flow.refresh(first.refresh_token);
    expect(await mcpStatus(rotated.body.access_token!)).toBe(200);
    await rotatedAgo(first.refresh_token, REFRESH_REUSE_GRACE_SECONDS + 1);
    const reused = await flow.refresh(first.refresh_token);
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The whole family: the successor and its access token are refused too.
    expect(await mcpStatus(rotated.body.access_token!)).toBe(401);
    expect((await flow.refresh(rotated.body.refresh_token!)).status).toBe(400);
    await until(async () => (await endings(flow.clientId)).length > 0, 'the end of the sign-in to be recorded');
    expect(await endings(flow.clientId)).toEqual([{ clientId: flow.clientId, subject: 'alice', reason: 'refresh_token_reuse' }]);
  });

  it('records a sign-in the client ends itself by revoking its refresh token', async () => {
    const { flow, first } = await signIn();
    expect(await flow.revoke(first.refresh_token)).toBe(200);
    expect(await mcpStatus(first.access_token)).toBe(401);
    // The provider announces the revocation as it answers; the end is recorded just after (off the answer's path): wait for it.
    await until(async () => (await endings(flow.clientId)).length > 0, 'the end of the sign-in to be recorded');
    expect(await endings(flow.clientId)).toEqual([{ clientId: flow.clientId, subject: 'alice', reason: 'revoked_by_client' }]);
  });
});
