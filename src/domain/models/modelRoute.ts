/**
 * Which provider answers a block's `model`. A block names either `provider:model`
 * (`anthropic:claude-sonnet-4-5`, `compatible:llama3:8b`: everything after the first colon is the
 * provider's own model name) or a bare name, routed by its family: `claude-*` to Anthropic,
 * `gemini-*` to Google, `gpt-*`, `chatgpt-*` and `o<digit>*` to OpenAI; any other bare name (an OpenAI-compatible server's
 * model, `llama3:8b` included) to the default provider, which answers through OPENAI_BASE_URL.
 * Azure OpenAI is only ever named: `azure:<deployment>` (a deployment's name is the operator's).
 * Pure: the providers configured are the caller's question.
 */
export const PROVIDERS = ['openai', 'anthropic', 'google', 'azure', 'compatible'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ModelRoute {
  provider: ProviderName;
  /** The model as the provider names it. */
  model: string;
}

export const isProvider = (name: string): name is ProviderName => (PROVIDERS as readonly string[]).includes(name);

/** The family a bare model name belongs to, or undefined when it is nobody's in particular. */
function familyProvider(model: string): ProviderName | undefined {
  if (/^claude-/.test(model)) return 'anthropic';
  if (/^gemini-/.test(model)) return 'google';
  if (/^(gpt-|chatgpt-|o\d)/.test(model)) return 'openai';
  return undefined;
}

export function routeModel(model: string): ModelRoute {
  const colon = model.indexOf(':');
  const prefix = colon > 0 ? model.slice(0, colon) : '';
  if (isProvider(prefix)) return { provider: prefix, model: model.slice(colon + 1) };
  return { provider: familyProvider(model) ?? 'openai', model };
}

/** Where the service's account with each provider is configured (an organization may bring its own key for any: `seqflow org provider-key --provider`). */
export const PROVIDER_SETTINGS: Record<ProviderName, string> = {
  openai: 'OPENAI_BASE_URL/OPENAI_API_KEY, or an organization key',
  anthropic: 'ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL',
  google: 'GEMINI_API_KEY, GEMINI_BASE_URL',
  azure: 'AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY, AZURE_OPENAI_API_VERSION',
  compatible: 'SEQFLOW_COMPATIBLE_BASE_URL, SEQFLOW_COMPATIBLE_API_KEY',
};

/** The providers the service itself has an account with (an organization's own keys add theirs for it). */
export function configuredProviders(services: Record<ProviderName, { apiKey: string | undefined; baseUrl: string | undefined }>): ProviderName[] {
  return PROVIDERS.filter((provider) => (provider === 'azure' ? Boolean(services.azure.apiKey && services.azure.baseUrl) : Boolean(services[provider].apiKey || services[provider].baseUrl)));
}
