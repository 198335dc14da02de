import { describe, expect, it } from 'vitest';
import { oauthCredentials, parseStoredOAuth, storedOAuthValue } from '../../src/domain/blocks/llm/storedOAuth.ts';
import { SIGN_IN_AGAIN, storedOAuthProvider } from '../../src/execution/blocks/storedOAuthProvider.ts';

const state = { client: { client_id: 'seqflow', client_secret: 'cs-123456' }, tokens: { access_token: 'at-1', token_type: 'Bearer', refresh_token: 'rt-1' } };

describe("an MCP server's stored OAuth tokens", () => {
  it('are read from the secret as one line of JSON, keeping the fields the SDK adds, and refused without naming the value', () => {
    const withIssuer = { ...state, tokens: { ...state.tokens, issuer: 'https://auth.example' } };
    expect(parseStoredOAuth(storedOAuthValue(withIssuer))).toEqual(withIssuer);
    expect(storedOAuthValue(state)).not.toContain('\n');
    expect(parseStoredOAuth('at-1 is my token')).toEqual({ problem: 'is not JSON' });
    const refused = parseStoredOAuth(JSON.stringify({ tokens: { access_token: 'at-secret-9' } }));
    expect(refused).toMatchObject({ problem: expect.stringContaining('client, tokens.token_type') });
    expect(JSON.stringify(refused)).not.toContain('at-secret-9');
    expect(oauthCredentials(state)).toEqual({ 'oauth.access_token': 'at-1', 'oauth.refresh_token': 'rt-1', 'oauth.client_secret': 'cs-123456' });
  });

  it('are refreshed by the refresh grant only (no browser here), and a refresh that answers no refresh token keeps the stored one', async () => {
    const saved: unknown[] = [];
    const provider = storedOAuthProvider(state, async (next) => void saved.push(next));
    expect(provider.redirectUrl).toBeUndefined();
    expect(String(await provider.prepareTokenRequest!())).toBe('grant_type=refresh_token&refresh_token=rt-1');
    await provider.saveTokens({ access_token: 'at-2', token_type: 'Bearer', expires_in: 60 });
    expect(saved).toEqual([{ ...state, tokens: { access_token: 'at-2', token_type: 'Bearer', expires_in: 60, refresh_token: 'rt-1' } }]);
    expect(await provider.tokens()).toMatchObject({ access_token: 'at-2', refresh_token: 'rt-1' });
    expect(() => provider.redirectToAuthorization(new URL('https://auth.example/authorize'))).toThrow(SIGN_IN_AGAIN);
    const noRefresh = storedOAuthProvider({ ...state, tokens: { access_token: 'at-1', token_type: 'Bearer' } }, async () => undefined);
    expect(await noRefresh.prepareTokenRequest!()).toBeUndefined();
  });
});
