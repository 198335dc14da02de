import Anthropic from '@anthropic-ai/sdk';
import { anthropicRequestOf, chatCompletionOf } from './anthropicTranslation.ts';
import type { ChatProvider, ProviderClientOptions } from './chatRequest.ts';
import { createClientCache } from './clientCache.ts';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/**
 * Anthropic's Messages API through its own SDK (`@anthropic-ai/sdk`, which sends API version
 * 2026-10-21): the chat request translated there and back (anthropicTranslation.ts). Every
 * credential is given explicitly, so the SDK never looks for one in the environment or on disk.
 */
export function createAnthropicProvider(options: ProviderClientOptions): ChatProvider {
  const clientFor = createClientCache(
    (account) => new Anthropic({ apiKey: account.apiKey, baseURL: account.baseUrl ?? ANTHROPIC_BASE_URL, timeout: options.timeoutMs, maxRetries: options.maxRetries, fetch: options.fetch }),
  );
  return {
    baseUrl: (account) => clientFor(account).baseURL,
    complete: async (request, account) => chatCompletionOf(await clientFor(account).messages.create(anthropicRequestOf(request))),
  };
}
