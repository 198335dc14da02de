import type { OrganizationStates } from '../caches/organizationStates.ts';
import { decryptSecret } from '../security/secretBox.ts';
import type { ProviderAccount } from './providers/providerAccount.ts';
import { type ProviderName, configuredProviders } from '../domain/models/modelRoute.ts';

type ServiceAccount = { apiKey: string | undefined; baseUrl: string | undefined };

/**
 * Which provider account pays for an organization's llm calls to `provider`: its own key for that
 * provider when it set one (decrypted only here, at call time; its base URL, else the service's for
 * that provider), otherwise the service's settings for that provider (OPENAI_*, ANTHROPIC_*,
 * GEMINI_*, AZURE_OPENAI_*, SEQFLOW_COMPATIBLE_*), otherwise none.
 */
export function providerAccountResolver(organizations: OrganizationStates, masterKey: Buffer, services: Record<ProviderName, ServiceAccount>) {
  const configured = configuredProviders(services);
  return async (organizationId: string, provider: ProviderName = 'openai'): Promise<ProviderAccount | undefined> => {
    const { state } = await organizations.load(organizationId);
    const own = state.status === 'created' ? state.providerKeys[provider] : undefined;
    if (own) return { provider, owner: organizationId, apiKey: decryptSecret(own.encryptedKey, masterKey), baseUrl: own.baseUrl ?? services[provider].baseUrl, organizationKey: true };
    const service = services[provider];
    // An OpenAI-compatible server may need no key at all (Ollama, vLLM): its base URL is enough. Azure needs both its endpoint and its key.
    if (configured.includes(provider)) return { provider, owner: provider === 'openai' ? 'service' : `service:${provider}`, apiKey: service.apiKey ?? 'unused', baseUrl: service.baseUrl, organizationKey: false };
    return undefined;
  };
}
