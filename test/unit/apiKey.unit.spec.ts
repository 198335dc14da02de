import { describe, expect, it } from 'vitest';
import { apiKey } from '../../src/domain/apiKeys/apiKey.ts';
import { apiKeyIdIn, formatApiKey, hashApiKeySecret, parseApiKey, verifyApiKeySecret } from '../../src/domain/apiKeys/apiKeyFormat.ts';
import { fold } from '../../src/domain/decider.ts';

const secret = 'ab'.repeat(32);
const keyId = '0123456789abcdef01234567';

describe('API key format', () => {
  it('finds the key id in the id, the shown prefix or the whole key, and in nothing else', () => {
    const keyId = 'a'.repeat(24);
    const whole = formatApiKey({ prefix: 'sf', environment: 'live', keyId, secret: 'b'.repeat(64) });
    expect([keyId, `sf_live_${keyId}`, `sf_live_${keyId}_`, whole].map(apiKeyIdIn)).toEqual([keyId, keyId, keyId, keyId]);
    expect(['order-4711', 'a'.repeat(23), `sf_prod_${keyId}`].map(apiKeyIdIn)).toEqual([null, null, null]);
  });

  it('formats {key_prefix}_{environment}_{key_id}_{secret} and parses it back', () => {
    const key = formatApiKey({ prefix: 'sf', environment: 'live', keyId, secret });
    expect(key).toBe(`sf_live_${keyId}_${secret}`);
    expect(parseApiKey(key)).toEqual({ prefix: 'sf', environment: 'live', keyId, secret });
  });

  it.each([
    ['empty', ''],
    ['unknown environment', `sf_prod_${keyId}_${secret}`],
    ['short secret', `sf_live_${keyId}_abcd`],
    ['missing part', `sf_live_${secret}`],
    ['trailing data', `sf_live_${keyId}_${secret}_x`],
    ['uppercase secret', `sf_live_${keyId}_${secret.toUpperCase()}`],
  ])('refuses a malformed key (%s)', (_label, raw) => {
    expect(parseApiKey(raw)).toBeNull();
  });

  it('stores only a SHA-256 of the secret and verifies against it', () => {
    const hash = hashApiKeySecret(secret);
    expect(hash).toMatch(/^[a-f0-9]{64}$/);
    expect(hash).not.toContain(secret);
    expect(verifyApiKeySecret(secret, hash)).toBe(true);
    expect(verifyApiKeySecret('cd'.repeat(32), hash)).toBe(false);
    expect(verifyApiKeySecret(secret, 'short')).toBe(false);
  });
});

describe('API key decider', () => {
  const create = { type: 'CreateApiKey' as const, data: { keyId, projectId: 'p', organizationId: 'o', environment: 'test' as const, keyPrefix: 'sf', secretHash: hashApiKeySecret(secret) } };

  it('creates, revokes once, and treats a second revocation as done', () => {
    const createdEvents = apiKey.decide(create, apiKey.initialState());
    expect(createdEvents).toEqual([{ type: 'ApiKeyCreated', data: create.data }]);
    const revoked = apiKey.decide({ type: 'RevokeApiKey', data: { keyId } }, fold(apiKey, createdEvents));
    expect(revoked).toEqual([{ type: 'ApiKeyRevoked', data: { keyId, projectId: 'p' } }]);
    expect(apiKey.decide({ type: 'RevokeApiKey', data: { keyId } }, fold(apiKey, [...createdEvents, ...revoked]))).toEqual([]);
  });

  it('refuses to revoke an unknown key', () => {
    expect(() => apiKey.decide({ type: 'RevokeApiKey', data: { keyId } }, apiKey.initialState())).toThrow(expect.objectContaining({ code: 'API_KEY_NOT_FOUND' }));
  });
});
