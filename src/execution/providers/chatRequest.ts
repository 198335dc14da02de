import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Tool, ToolChoice } from '../../domain/tools/toolDefinition.ts';
import type { ProviderAccount } from './providerAccount.ts';
import type { Fetch } from '../../outbound/cappedReply.ts';

/**
 * One model request as the engine makes it, whichever provider answers: the conversation in the
 * spec's (OpenAI chat) format, the block's settings already under the provider's own names, the
 * caller's tools, and the output schema. Each provider translates it to its API and its answer back
 * to a chat completion, so nothing above the provider knows which one answered.
 */
export interface ChatRequest {
  /** The model as its provider names it (no `provider:` prefix). */
  model: string;
  messages: ChatCompletionMessageParam[];
  parameters: Record<string, unknown>;
  tools?: { tools: Tool[]; toolChoice: ToolChoice };
  output?: { name: string; strict: boolean; schema: Record<string, unknown> };
  /** Each attached image's declared type, by URL (Gemini reads an image by URL only when told its type). */
  mediaTypes?: Readonly<Record<string, string>>;
}

export interface ChatProvider {
  /**
   * The model's answer as a chat completion. With `onDelta`, the reply is streamed and each piece of
   * its text handed there as it comes; the answer is the same whole completion either way.
   */
  complete(request: ChatRequest, account: ProviderAccount, onDelta?: (delta: string) => void): Promise<OpenAI.ChatCompletion>;
  /** Where the account's requests go (span attributes). */
  baseUrl(account: ProviderAccount): string;
}

/** How every provider's client is made: replies through the guard and capped, the timeout, the SDK's own retries (0: the service retries, modelCallRetries.ts). */
export interface ProviderClientOptions {
  fetch: Fetch;
  timeoutMs: number;
  maxRetries: number;
}
