import { type Context, ROOT_CONTEXT, SpanKind, type Tracer } from '@opentelemetry/api';
import { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions';
import { LRUCache } from 'lru-cache';
import OpenAI from 'openai';
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Attachment } from '../../domain/execution/attachment.ts';
import { replyOutput } from '../../domain/execution/outputShape.ts';
import { type StructuredOutputPlan, dropNullOptionals } from '../../domain/execution/strictSchema.ts';
import { unstorableJson } from '../../domain/validation/storableJson.ts';
import { createSchemaValidators } from '../schemaValidators.ts';
import type { RequestedToolCall, TokenUsage } from '../../domain/execution/executionEvents.ts';
import type { Tool, ToolChoice } from '../../domain/tools/toolRules.ts';
import { type AddressGuard, BlockedAddressError } from '../../outbound/addressGuard.ts';
import { BlockFailure } from './blockFailure.ts';
import { GEN_AI } from '../../observability/spanAttributes.ts';
import { failSpan } from '../../observability/traceContext.ts';

/** Where llm calls go: the service's provider, or the organization's own key ("byok"). */
export interface ProviderAccount {
  /** Whose account: an organization id (its own key) or `service`. */
  owner: string;
  apiKey: string;
  baseUrl: string | undefined;
  organizationKey: boolean;
}

export interface LlmCall {
  blockName: string;
  model: string;
  prompt: string;
  attachments: Attachment[];
  /** The block's own output schema and how it is sent (strict when that keeps its meaning). */
  output: { schema: Record<string, unknown>; plan: StructuredOutputPlan } | undefined;
  /** Tool calling: the tools the caller sent, and the conversation so far when resuming. */
  tools?: { tools: Tool[]; toolChoice: ToolChoice; conversation?: ChatCompletionMessageParam[] };
}

export type LlmResult =
  /** `validationErrors`: why earlier attempts' replies were refused (each then repaired). */
  | { kind: 'output'; output: unknown; usage: TokenUsage; attempts: number; validationErrors: string[] }
  /** The model asked for tool calls: `conversation` is every message so far, its request included. */
  | { kind: 'tool_calls'; toolCalls: RequestedToolCall[]; conversation: ChatCompletionMessageParam[]; usage: TokenUsage };

export interface LlmProcessorOptions {
  guard: AddressGuard;
  timeoutMs: number;
  /** Retries of 429 and 5xx answers, with the client's exponential backoff (honours Retry-After). */
  maxRetries: number;
  /** Told of every model call: the model, `ok` or the failure's code, its seconds and tokens. */
  observeCall?: (model: string, outcome: string, seconds: number, usage?: { input: number; output: number }) => void;
  /** Makes a span per model call (GenAI semantic conventions). */
  tracer: Tracer;
}

const addUsage = (a: TokenUsage, b: OpenAI.CompletionUsage | undefined): TokenUsage => ({
  promptTokens: a.promptTokens + (b?.prompt_tokens ?? 0),
  completionTokens: a.completionTokens + (b?.completion_tokens ?? 0),
  totalTokens: a.totalTokens + (b?.total_tokens ?? 0),
});

/** A chat call's span attributes before it is made (GenAI semantic conventions). */
function chatAttributes(model: string, baseUrl: string) {
  const url = new URL(baseUrl);
  return {
    [GEN_AI.operationName]: 'chat',
    [GEN_AI.providerName]: 'openai',
    [GEN_AI.requestModel]: model,
    [ATTR_SERVER_ADDRESS]: url.hostname,
    [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
  };
}

export function createLlmProcessor(options: LlmProcessorOptions) {
  // One client per account, bounded; an owner whose key or base URL changed drops its previous client at once.
  const clients = new LRUCache<string, OpenAI>({ max: 500 });
  const keyOfOwner = new LRUCache<string, string>({ max: 500 });
  const validators = createSchemaValidators({ max: 1000 });

  const clientFor = (account: ProviderAccount) => {
    const key = `${account.baseUrl ?? ''}\u0000${account.apiKey}`;
    const previous = keyOfOwner.get(account.owner);
    if (previous !== undefined && previous !== key) clients.delete(previous);
    keyOfOwner.set(account.owner, key);
    let client = clients.get(key);
    if (!client) {
      client = new OpenAI({
        apiKey: account.apiKey,
        baseURL: account.baseUrl,
        timeout: options.timeoutMs,
        maxRetries: options.maxRetries,
        fetch: options.guard.fetch,
      });
      clients.set(key, client);
    }
    return client;
  };

  /** The reply as the block's structured output (checked against the user's own schema), or the reason it is not. */
  function parseStructured(content: string | null | undefined, output: NonNullable<LlmCall['output']>): { ok: true; value: unknown } | { ok: false; problem: string } {
    if (!content) return { ok: false, problem: 'the reply was empty' };
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      return { ok: false, problem: 'the reply was not JSON' };
    }
    if (output.plan.strict) value = dropNullOptionals(value, output.schema);
    const unstorable = unstorableJson(value, 'reply');
    if (unstorable) return { ok: false, problem: unstorable.message };
    const problems = validators.problems(output.schema, value);
    return problems ? { ok: false, problem: `the reply did not match the schema: ${problems}` } : { ok: true, value };
  }

  function failureOf(error: unknown, account: ProviderAccount, sentTools: boolean): BlockFailure {
    if (error instanceof BlockFailure) return error;
    if (sentTools && error instanceof OpenAI.APIError && [400, 404, 422, 501].includes(error.status ?? 0) && /tool|function/i.test(error.message)) {
      return new BlockFailure('TOOLS_UNSUPPORTED', `the model or gateway does not support function calling: ${error.message}`);
    }
    if (error instanceof OpenAI.APIConnectionTimeoutError) return new BlockFailure('PROVIDER_TIMEOUT', `the model provider did not answer within ${options.timeoutMs} ms`);
    if (error instanceof OpenAI.AuthenticationError || error instanceof OpenAI.PermissionDeniedError) {
      return account.organizationKey
        ? new BlockFailure('BYOK_REJECTED', `the model provider rejected the organization's own key (HTTP ${error.status})`, 'byok_rejected')
        : new BlockFailure('PROVIDER_ERROR', `the model provider rejected the service's key (HTTP ${error.status})`);
    }
    if (error instanceof OpenAI.APIConnectionError) {
      const blocked = findBlocked(error);
      return new BlockFailure(
        'PROVIDER_ERROR',
        blocked
          ? `the model provider's address is not allowed: ${blocked.message} (for a model server on this machine or your network, allow its range with SEQFLOW_OUTBOUND_ALLOW_CIDRS)`
          : `cannot reach the model provider: ${error.message}`,
      );
    }
    if (error instanceof OpenAI.APIError) {
      const detail = (error.error as { message?: string } | undefined)?.message ?? error.message;
      return new BlockFailure('PROVIDER_ERROR', `the model provider answered HTTP ${error.status ?? '?'}: ${detail}`);
    }
    return new BlockFailure('PROVIDER_ERROR', `model call failed: ${(error as Error).message}`);
  }

  return {
    /** `parent`: the span the model calls' spans belong to (the step's). */
    async run(call: LlmCall, account: ProviderAccount, parent: Context = ROOT_CONTEXT): Promise<LlmResult> {
      const client = clientFor(account);
      const content: string | ChatCompletionContentPart[] =
        call.attachments.length === 0
          ? call.prompt
          : [{ type: 'text', text: call.prompt }, ...call.attachments.map((a): ChatCompletionContentPart => ({ type: 'image_url', image_url: { url: a.url } }))];
      const messages: ChatCompletionMessageParam[] = call.tools?.conversation ? [...call.tools.conversation] : [{ role: 'user', content }];
      const toolParams = call.tools && call.tools.tools.length > 0 ? { tools: call.tools.tools, tool_choice: call.tools.toolChoice } : {};
      const responseFormat = call.output
        ? { type: 'json_schema' as const, json_schema: { name: call.blockName.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64), strict: call.output.plan.strict, schema: call.output.plan.schema } }
        : undefined;

      const spent = { usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } as TokenUsage };
      const create = async () => {
        const begun = performance.now();
        const seconds = () => (performance.now() - begun) / 1000;
        const span = options.tracer.startSpan(`chat ${call.model}`, { kind: SpanKind.CLIENT, attributes: chatAttributes(call.model, client.baseURL) }, parent);
        try {
          const completion = await client.chat.completions.create({ model: call.model, messages, ...toolParams, ...(responseFormat ? { response_format: responseFormat } : {}) });
          const usage = completion.usage ? { input: completion.usage.prompt_tokens, output: completion.usage.completion_tokens } : undefined;
          options.observeCall?.(call.model, 'ok', seconds(), usage);
          span.setAttributes({
            [GEN_AI.responseModel]: completion.model,
            [GEN_AI.responseId]: completion.id,
            [GEN_AI.finishReasons]: completion.choices.map((c) => c.finish_reason),
            ...(usage ? { [GEN_AI.inputTokens]: usage.input, [GEN_AI.outputTokens]: usage.output } : {}),
          });
          return completion;
        } catch (error) {
          const failure = failureOf(error, account, 'tools' in toolParams);
          options.observeCall?.(call.model, failure.code, seconds());
          failSpan(span, failure);
          throw failure;
        } finally {
          span.end();
        }
      };
      try {
        return await converse(call, messages, create, spent);
      } catch (error) {
        // Whatever fails after a completed call, its tokens were used: the caller charges them.
        const failure = error instanceof BlockFailure ? error : Object.assign(new BlockFailure('INTERNAL', 'internal error'), { cause: error });
        throw spent.usage.totalTokens > 0 ? Object.assign(failure, { usage: spent.usage }) : failure;
      }
    },
  };

  /** One model turn, or two when a structured reply needs its repair attempt; `spent` counts the tokens as they are used. */
  async function converse(call: LlmCall, messages: ChatCompletionMessageParam[], create: () => Promise<OpenAI.ChatCompletion>, spent: { usage: TokenUsage }): Promise<LlmResult> {
    // With a schema, a reply that ignores it gets one repair attempt.
    const validationErrors: string[] = [];
    for (let attempt = 1; attempt <= (call.output ? 2 : 1); attempt++) {
      const completion = await create();
      const usage = (spent.usage = addUsage(spent.usage, completion.usage));
      const message = completion.choices[0]?.message;
      const calls = (message?.tool_calls ?? []).filter((c) => c.type === 'function');
      if (calls.length > 0) {
        const toolCalls = calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
        const request: ChatCompletionMessageParam = {
          role: 'assistant',
          content: message?.content ?? null,
          tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.function.name, arguments: c.function.arguments } })),
        };
        const unstorable = unstorableJson(toolCalls, 'toolCalls');
        if (unstorable) throw new BlockFailure('MODEL_OUTPUT_INVALID', `model ${call.model} asked for tool calls that cannot be stored: ${unstorable.message}`);
        return { kind: 'tool_calls', toolCalls, conversation: [...messages, request], usage };
      }
      const reply = message?.content;
      if (!call.output) {
        const output = replyOutput(reply ?? '');
        const unstorable = unstorableJson(output, 'reply');
        if (unstorable) throw new BlockFailure('MODEL_OUTPUT_INVALID', `the reply of model ${call.model} cannot be stored: ${unstorable.message}`);
        return { kind: 'output', output, usage, attempts: attempt, validationErrors };
      }
      const parsed = parseStructured(reply, call.output);
      if (parsed.ok) return { kind: 'output', output: parsed.value, usage, attempts: attempt, validationErrors };
      if (attempt === 2) {
        throw Object.assign(new BlockFailure('MODEL_OUTPUT_INVALID', `model ${call.model} ignored the output schema after a repair attempt: ${parsed.problem}`), { usage });
      }
      validationErrors.push(parsed.problem);
      messages.push(
        { role: 'assistant', content: reply ?? '' },
        { role: 'user', content: `Your reply was refused: ${parsed.problem}. Reply again with only a JSON object that matches the JSON Schema.` },
      );
    }
    throw new Error('unreachable');
  }
}

function findBlocked(error: unknown): BlockedAddressError | undefined {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if (current instanceof BlockedAddressError) return current;
  }
  return undefined;
}

export type LlmProcessor = ReturnType<typeof createLlmProcessor>;
