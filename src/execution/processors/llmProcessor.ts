import { type Context, ROOT_CONTEXT, SpanKind, type Tracer } from '@opentelemetry/api';
import { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions';
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ProviderName } from '../../domain/models/modelRoute.ts';
import { routeModel } from '../../domain/models/modelRoute.ts';
import { createAnthropicProvider } from '../providers/anthropicMessages.ts';
import { createGeminiProvider } from '../providers/geminiGenerate.ts';
import type { ChatProvider } from '../providers/chatRequest.ts';
import { AZURE_DEFAULT_API_VERSION, createAzureChatProvider, createOpenAiChatProvider } from '../providers/openaiChat.ts';
import { createSchemaValidators } from '../schemaValidators.ts';
import type { ModelAttempt, TokenUsage } from '../../domain/execution/executionEvents.ts';
import type { AddressGuard } from '../../outbound/addressGuard.ts';
import { cappedReplies } from '../../outbound/cappedReply.ts';
import { BlockFailure } from './blockFailure.ts';
import { GEN_AI } from '../../observability/spanAttributes.ts';
import { failSpan } from '../../observability/traceContext.ts';
import { converse } from './modelConversation.ts';
import { failureOf } from './providerFailure.ts';
import { withModelRetries } from './modelCallRetries.ts';
import { tokenUsageOf } from '../../domain/execution/tokenUsage.ts';
import type { LlmCall, LlmResult, TimedModelCall } from './llmCall.ts';
import type { ProviderAccount } from '../providers/providerAccount.ts';

export interface LlmProcessorOptions {
  guard: AddressGuard;
  timeoutMs: number;
  /** Retries of a call its provider could not answer (429, 5xx, timeout, no connection): modelCallRetries.ts. */
  maxRetries: number;
  /** The longest wait before a retry (SEQFLOW_LLM_MAX_RETRY_WAIT_MS): a longer Retry-After fails the call at once. */
  maxRetryWaitMs: number;
  /** The largest reply body read from the provider. */
  maxReplyBytes: number;
  /** AZURE_OPENAI_API_VERSION. */
  azureApiVersion?: string | undefined;
  /** Told of every model call: the model, `ok` or the failure's code, its seconds and tokens. */
  observeCall?: (model: string, outcome: string, seconds: number, usage?: { input: number; output: number }) => void;
  /** Makes a span per model call (GenAI semantic conventions). */
  tracer: Tracer;
}

/** The GenAI semantic conventions' names of the providers (a compatible server speaks OpenAI's API). */
const GEN_AI_PROVIDER: Record<ProviderName, string> = { openai: 'openai', compatible: 'openai', anthropic: 'anthropic', google: 'gcp.gemini', azure: 'azure.ai.openai' };

/** A chat call's span attributes before it is made (GenAI semantic conventions). */
function chatAttributes(provider: ProviderName, model: string, baseUrl: string) {
  const url = new URL(baseUrl);
  return {
    [GEN_AI.operationName]: 'chat',
    [GEN_AI.providerName]: GEN_AI_PROVIDER[provider],
    [GEN_AI.requestModel]: model,
    [ATTR_SERVER_ADDRESS]: url.hostname,
    [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
  };
}

export function createLlmProcessor(options: LlmProcessorOptions) {
  const validators = createSchemaValidators({ max: 1000 });
  // The SDKs do not retry: one policy does, for every provider (withModelRetries).
  const clientOptions = { fetch: cappedReplies(options.guard.fetch, options.maxReplyBytes), timeoutMs: options.timeoutMs, maxRetries: 0 };
  const retryLimits = { maxRetries: options.maxRetries, maxWaitMs: options.maxRetryWaitMs };
  const openAiChat = createOpenAiChatProvider(clientOptions);
  // Each provider through its own SDK; OpenAI-compatible servers speak OpenAI's chat completions.
  const providers: Record<ProviderName, ChatProvider> = {
    openai: openAiChat,
    compatible: openAiChat,
    anthropic: createAnthropicProvider(clientOptions),
    google: createGeminiProvider(clientOptions),
    azure: createAzureChatProvider({ ...clientOptions, apiVersion: options.azureApiVersion ?? AZURE_DEFAULT_API_VERSION }),
  };

  return {
    /** `parent`: the span the model calls' spans belong to (the step's). */
    async run(call: LlmCall, account: ProviderAccount, parent: Context = ROOT_CONTEXT): Promise<LlmResult> {
      const route = routeModel(call.model);
      const provider = providers[account.provider];
      const content: string | ChatCompletionContentPart[] =
        call.attachments.length === 0
          ? call.prompt
          : [{ type: 'text', text: call.prompt }, ...call.attachments.map((a): ChatCompletionContentPart => ({ type: 'image_url', image_url: { url: a.url } }))];
      const opening: ChatCompletionMessageParam[] = call.settings.systemPrompt ? [{ role: 'system', content: call.settings.systemPrompt }, { role: 'user', content }] : [{ role: 'user', content }];
      // A resumed conversation carries its opening messages (the system prompt among them) already.
      const messages: ChatCompletionMessageParam[] = call.tools?.conversation ? [...call.tools.conversation] : opening;
      const tools = call.tools && call.tools.tools.length > 0 ? { tools: call.tools.tools, toolChoice: call.tools.toolChoice } : undefined;
      const output = call.output ? { name: call.blockName.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64), strict: call.output.plan.strict, schema: call.output.plan.schema } : undefined;

      const mediaTypes = Object.fromEntries(call.attachments.map((a) => [a.url, a.mime_type]));
      const spent = { usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } as TokenUsage, attempts: [] as ModelAttempt[] };
      const calls: TimedModelCall[] = [];
      const create = async () => {
        const begun = performance.now();
        const timed = (outcome: TimedModelCall['outcome']) => calls.push({ startedAt: begun, durationMs: Math.round(performance.now() - begun), outcome });
        const seconds = () => (performance.now() - begun) / 1000;
        const span = options.tracer.startSpan(`chat ${route.model}`, { kind: SpanKind.CLIENT, attributes: chatAttributes(account.provider, route.model, provider.baseUrl(account)) }, parent);
        try {
          const completion = await provider.complete({ model: route.model, messages, parameters: call.settings.parameters, ...(tools ? { tools } : {}), ...(output ? { output } : {}), mediaTypes }, account, call.onDelta);
          // A gateway or proxy can answer 200 with a page of its own: the SDK hands its text over as the completion.
          if (!isChatCompletion(completion)) throw new BlockFailure('PROVIDER_ERROR', NOT_A_COMPLETION);
          // Checked before anything counts them: a negative or infinite count is the provider's bug, never a bill.
          const checked = tokenUsageOf(completion.usage);
          if ('problem' in checked) throw new BlockFailure('PROVIDER_ERROR', 'the model provider reported token counts that are not counts', { detail: checked.problem });
          if (checked.usage) completion.usage = { prompt_tokens: checked.usage.promptTokens, completion_tokens: checked.usage.completionTokens, total_tokens: checked.usage.totalTokens };
          const usage = checked.usage ? { input: checked.usage.promptTokens, output: checked.usage.completionTokens } : undefined;
          options.observeCall?.(call.model, 'ok', seconds(), usage);
          timed('answered');
          span.setAttributes({
            [GEN_AI.responseModel]: completion.model,
            [GEN_AI.responseId]: completion.id,
            [GEN_AI.finishReasons]: completion.choices.map((c) => c.finish_reason),
            ...(usage ? { [GEN_AI.inputTokens]: usage.input, [GEN_AI.outputTokens]: usage.output } : {}),
          });
          return completion;
        } catch (error) {
          const failure = failureOf(error, account, tools !== undefined, options.timeoutMs);
          options.observeCall?.(call.model, failure.code, seconds());
          timed('failed');
          failSpan(span, failure);
          throw failure;
        } finally {
          span.end();
        }
      };
      try {
        const result = await converse(call, messages, () => withModelRetries(create, retryLimits), spent, validators);
        return result.kind === 'output' ? { ...result, calls } : result;
      } catch (error) {
        // Whatever fails after a completed call, its tokens were used: the caller charges them, and records the replies.
        const failure = error instanceof BlockFailure ? error : Object.assign(new BlockFailure('INTERNAL', 'internal error'), { cause: error });
        Object.assign(failure, { attempts: spent.attempts, calls });
        throw spent.usage.totalTokens > 0 ? Object.assign(failure, { usage: spent.usage }) : failure;
      }
    },
  };
}

export type LlmProcessor = ReturnType<typeof createLlmProcessor>;

const NOT_A_COMPLETION = "the model provider's answer is not a chat completion (it answered 200 with something else: a proxy's or gateway's page?)";

/** Whether what a provider answered has the shape every reader of a completion relies on. */
function isChatCompletion(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Array.isArray((value as { choices?: unknown }).choices);
}
