import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/domain/domainEvent.ts';
import { organization } from '../../src/domain/organizations/organization.ts';

const encryptedKey = { iv: 'i', tag: 't', ciphertext: 'c' };

describe('ProviderKeySet version 1 in the log', () => {
  it('is read as version 2: a key for the default (OpenAI-compatible) provider, the only one there was', () => {
    const v1 = { organizationId: 'o', encryptedKey, keyHint: '…1234', baseUrl: 'https://llm.example.com/v1' };
    expect(decodeEvent('ProviderKeySet', 1, v1).data).toEqual({ ...v1, provider: 'openai' });
  });
});

describe("an organization's own provider keys", () => {
  it('are kept by provider: a key for one provider leaves the others', () => {
    const created = organization.evolve(organization.initialState(), { type: 'OrganizationCreated', data: { organizationId: 'o', slug: 'acme', name: 'Acme' } });
    const keyed = [
      { type: 'ProviderKeySet' as const, data: { organizationId: 'o', provider: 'openai' as const, encryptedKey, keyHint: '…1111', baseUrl: null } },
      { type: 'ProviderKeySet' as const, data: { organizationId: 'o', provider: 'anthropic' as const, encryptedKey, keyHint: '…2222', baseUrl: null } },
      { type: 'ProviderKeySet' as const, data: { organizationId: 'o', provider: 'openai' as const, encryptedKey, keyHint: '…3333', baseUrl: null } },
    ].reduce(organization.evolve, created);
    expect(keyed.status === 'created' && Object.fromEntries(Object.entries(keyed.providerKeys).map(([p, k]) => [p, k.keyHint]))).toEqual({ openai: '…3333', anthropic: '…2222' });
  });
});
