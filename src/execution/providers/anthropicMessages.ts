import { anthropicRequestOf, chatCompletionOf } from './anthropicTranslation.ts';
import type { ChatProvider, ProviderClientOptions } from './chatRequest.ts';
import { createClientCache } from './clientCache.ts';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/**
 * Anthropic's Messages API through its own SDK (`@anthropic-ai/sdk`, which sends API version
 * 2026-10-21): the chat request translated there and back (anthropicTranslation.ts). Every
 * credential is given explicitly, so the SDK never looks for one in the environment or on disk. The
 * SDK is loaded when a model routed to Anthropic is first called: a process (a CLI command) that
 * calls none does not pay for loading it.
 */
export function createAnthropicProvider(options: ProviderClientOptions): ChatProvider {
  const clientFor = createClientCache(async (account) => {
    const { default: AnthropicClient } = await import('@anthropic-ai/sdk');
    return new AnthropicClient({ apiKey: account.apiKey, baseURL: account.baseUrl ?? ANTHROPIC_BASE_URL, timeout: options.timeoutMs, maxRetries: options.maxRetries, fetch: options.fetch });
  });
  return {
    baseUrl: (account) => account.baseUrl ?? ANTHROPIC_BASE_URL,
    complete: async (request, account, onDelta) => {
      const client = await clientFor(account);
      if (!onDelta) return chatCompletionOf(await client.messages.create(anthropicRequestOf(request)));
      // Streamed: the SDK puts the events back together into the same Message.
      const stream = client.messages.stream(anthropicRequestOf(request));
      stream.on('text', (delta) => onDelta(delta));
      return chatCompletionOf(await stream.finalMessage());
    },
  };
}
