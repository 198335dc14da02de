import OpenAI, { AzureOpenAI } from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { createClientCache } from './clientCache.ts';
import type { ChatProvider, ProviderClientOptions } from './chatRequest.ts';
import type { ProviderAccount } from './providerAccount.ts';

/**
 * OpenAI's chat completions, and any server that speaks them (the default provider, `compatible:`):
 * the request goes as it is, through the `openai` SDK.
 */
export function createOpenAiChatProvider(options: ProviderClientOptions): ChatProvider {
  return chatCompletionsProvider(createClientCache((account) => new OpenAI({ apiKey: account.apiKey, baseURL: account.baseUrl, timeout: options.timeoutMs, maxRetries: options.maxRetries, fetch: options.fetch })));
}

/** The Azure OpenAI API version requests name when AZURE_OPENAI_API_VERSION does not say (its latest GA data-plane version). */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/**
 * Azure OpenAI: the same chat completions, at `<endpoint>/openai/deployments/<deployment>/chat/completions?api-version=…`
 * with the key as `api-key`, through the `openai` SDK's AzureOpenAI. The base URL is given outright:
 * left to itself the SDK would read OPENAI_BASE_URL from the environment (the default provider's).
 */
export function createAzureChatProvider(options: ProviderClientOptions & { apiVersion: string }): ChatProvider {
  return chatCompletionsProvider(
    createClientCache(
      (account) => new AzureOpenAI({ apiKey: account.apiKey, baseURL: `${(account.baseUrl ?? '').replace(/\/+$/, '')}/openai`, apiVersion: options.apiVersion, timeout: options.timeoutMs, maxRetries: options.maxRetries, fetch: options.fetch }),
    ),
  );
}

function chatCompletionsProvider(clientFor: (account: ProviderAccount) => OpenAI): ChatProvider {
  return {
    baseUrl: (account) => clientFor(account).baseURL,
    complete: async (request, account, onDelta) => {
      const body = {
        ...request.parameters,
        model: request.model,
        messages: withoutForeignFields(request.messages),
        ...(request.tools && request.tools.tools.length > 0 ? { tools: request.tools.tools, tool_choice: request.tools.toolChoice } : {}),
        ...(request.output ? { response_format: { type: 'json_schema' as const, json_schema: request.output } } : {}),
      };
      if (!onDelta) return clientFor(account).chat.completions.create(body);
      // Streamed: the SDK puts the chunks back together (tool calls too); the usage comes in the last chunk when asked for.
      const stream = clientFor(account).chat.completions.stream({ ...body, stream_options: { include_usage: true } });
      stream.on('content.delta', ({ delta }) => onDelta(delta));
      return stream.finalChatCompletion();
    },
  };
}

/**
 * The conversation without what only another provider reads: a Gemini tool call's signature
 * (`extra_content`, geminiTranslation.ts) would be refused by OpenAI's schema for tool calls.
 */
function withoutForeignFields(messages: ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  return messages.map((message) =>
    message.role === 'assistant' && message.tool_calls?.some((call) => 'extra_content' in call)
      ? { ...message, tool_calls: message.tool_calls.map((call) => Object.fromEntries(Object.entries(call).filter(([key]) => key !== 'extra_content')) as typeof call) }
      : message,
  );
}
