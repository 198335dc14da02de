import OpenAI from 'openai';
import { createClientCache } from './clientCache.ts';
import type { ChatProvider, ProviderClientOptions } from './chatRequest.ts';

/**
 * OpenAI's chat completions, and any server that speaks them (the default provider, `compatible:`):
 * the request goes as it is, through the `openai` SDK.
 */
export function createOpenAiChatProvider(options: ProviderClientOptions): ChatProvider {
  const clientFor = createClientCache((account) => new OpenAI({ apiKey: account.apiKey, baseURL: account.baseUrl, timeout: options.timeoutMs, maxRetries: options.maxRetries, fetch: options.fetch }));
  return {
    baseUrl: (account) => clientFor(account).baseURL,
    complete: (request, account) =>
      clientFor(account).chat.completions.create({
        ...request.parameters,
        model: request.model,
        messages: request.messages,
        ...(request.tools && request.tools.tools.length > 0 ? { tools: request.tools.tools, tool_choice: request.tools.toolChoice } : {}),
        ...(request.output ? { response_format: { type: 'json_schema' as const, json_schema: request.output } } : {}),
      }),
  };
}
