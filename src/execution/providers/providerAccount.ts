import type { ProviderName } from '../../domain/models/modelRoute.ts';

/** Where llm calls go: the service's provider, or the organization's own key ("byok"). */
export interface ProviderAccount {
  /** Which provider the account is with (the model's route picks it). */
  provider: ProviderName;
  /** Whose account: an organization id (its own key) or `service` (with the provider: `service:anthropic`). */
  owner: string;
  apiKey: string;
  baseUrl: string | undefined;
  organizationKey: boolean;
}
