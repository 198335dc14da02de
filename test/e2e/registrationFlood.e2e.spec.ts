import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLoginCode } from '../../src/commands/loginCodeCommands.ts';
import { REDIRECT_URL, authorizeByHand } from '../support/oauthAssistant.ts';
import { type EmbeddedOAuthService, startEmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { testPrincipal } from '../support/testRuntime.ts';

/**
 * Anonymous registration cannot lock anyone out: past SEQFLOW_OAUTH_MAX_UNUSED_CLIENTS (5 here,
 * 10,000 by default), a new registration evicts the oldest one no member signed in with, and a
 * client in use is never evicted. (Before: once the bound was reached, every new assistant's
 * registration was refused for up to a day.)
 */
describe('a flood of anonymous client registrations', () => {
  let service: EmbeddedOAuthService;

  beforeAll(async () => {
    service = await startEmbeddedOAuthService('registration_flood', { alice: 'member' }, { SEQFLOW_OAUTH_MAX_UNUSED_CLIENTS: '5' });
  });
  afterAll(async () => {
    await service?.close();
  });

  const register = async (name: string) => {
    const answer = await fetch(`${service.origin}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT_URL], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    });
    return { status: answer.status, clientId: ((await answer.json()) as { client_id?: string }).client_id };
  };
  const unused = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM oauth_store WHERE model = 'Client' AND expires_at IS NOT NULL`.execute(service.t.runtime.db)).rows[0]!.n);
  const known = async (clientId: string) => (await fetch(`${service.origin}/oauth/auth?client_id=${encodeURIComponent(clientId)}&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT_URL)}&scope=mcp&code_challenge=${'x'.repeat(43)}&code_challenge_method=S256`, { redirect: 'manual' })).status !== 400;

  it('never refuses a new registration for what others registered: the oldest unused ones make room, a client in use stays', async () => {
    // A member's assistant, signed in: in use.
    const { code } = await issueLoginCode({ ...service.t.runtime.commands, db: service.t.runtime.db }, { subject: 'alice' }, testPrincipal);
    const inUse = await authorizeByHand(service.origin, code, { resource: service.mcpUrl, scope: 'mcp' });
    const flood = [];
    for (let i = 0; i < 8; i++) flood.push(await register(`flood ${i}`));
    expect(flood.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(await unused()).toBe(5);
    // The three oldest are gone; the five newest are known; the newest assistant registers and is known.
    expect(await Promise.all(flood.map((r) => known(r.clientId!)))).toEqual([false, false, false, true, true, true, true, true]);
    const newcomer = await register('a real assistant');
    expect(newcomer.status).toBe(201);
    expect(await known(newcomer.clientId!)).toBe(true);
    expect(await known(inUse.clientId)).toBe(true);
    expect((await inUse.exchange()).status).toBe(200);
  });
});
