import type { OrganizationStates } from '../caches/organizationStates.ts';
import { decryptSecret } from '../security/secretBox.ts';
import type { ProviderAccount } from './processors/llmCall.ts';

/**
 * Which provider account pays for an organization's llm calls: its own key when it set one
 * (decrypted only here, at call time), otherwise the service's OPENAI_* settings, otherwise none.
 */
export function providerAccountResolver(organizations: OrganizationStates, masterKey: Buffer, service: { apiKey: string | undefined; baseUrl: string | undefined }) {
  return async (organizationId: string): Promise<ProviderAccount | undefined> => {
    const { state } = await organizations.load(organizationId);
    if (state.status === 'created' && state.providerKey) {
      return { owner: organizationId, apiKey: decryptSecret(state.providerKey.encryptedKey, masterKey), baseUrl: state.providerKey.baseUrl ?? service.baseUrl, organizationKey: true };
    }
    if (service.apiKey || service.baseUrl) return { owner: 'service', apiKey: service.apiKey ?? 'unused', baseUrl: service.baseUrl, organizationKey: false };
    return undefined;
  };
}
