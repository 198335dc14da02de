import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ExecutionEvent, FallenBack, ModelAttempt, RequestedToolCall, TokenUsage } from '../../domain/execution/executionEvents.ts';
import type { ToolRequest } from '../engineDependencies.ts';
import { type ServerToolbox, openServerToolbox } from './serverToolCalls.ts';
import { noteStepFailed } from './localStep.ts';
import type { LlmCall } from '../processors/llmCall.ts';
import type { ProviderAccount } from '../providers/providerAccount.ts';
import { type StructuredOutputPlan, planStructuredOutput } from '../../domain/execution/strictSchema.ts';
import { DEFAULT_MAX_TOOL_ITERATIONS } from '../../domain/flows/flowDefinition.ts';
import { renderTemplate } from '../../domain/templating/template.ts';
import { llmRequestParameters, llmSettingsProblems } from '../../domain/blocks/llm/llmSettings.ts';
import { PROVIDER_SETTINGS, routeModel } from '../../domain/models/modelRoute.ts';
import { costUsd } from '../../domain/models/modelCatalog.ts';
import { capFailureDetail, capFailureMessage } from '../../domain/execution/failureMessage.ts';
import { conversationDigest } from '../../domain/tools/conversationDigest.ts';
import { type PauseData, PausedForTools } from '../pauseData.ts';
import { BlockFailure } from '../processors/blockFailure.ts';
import { firstAnswering } from '../modelFallbacks.ts';
import type { TimedModelCall } from '../processors/llmCall.ts';
import type { BlockStep } from './blockRunner.ts';

/**
 * How an `llm` block runs (its rules: src/domain/blocks/llm/). Its last step (`endsRun`): its
 * completion (and charge) goes durably in one append with the run's end, recorded right after it,
 * rather than in one of its own. A crash before that append loses both, as a crash before the
 * block's own append would have lost the block: a job taken over runs it again.
 *
 * One llm block: credits checked (the balance less what this call spent), the prompt rendered, the
 * step's start noted, the model called, and its tokens charged whatever happens next. A model that
 * asks for tools pauses the run (PausedForTools) unless the block reached its iteration cap.
 */
export async function runLlmBlock(step: BlockStep) {
  const { session, block, context, stepIndex, iteration, conversation } = step;
  const { deps, run } = session;
  const { executionId, organizationId, recorder } = run;
  const model = block.model ?? deps.settings.defaultModel;
  const balance = (await deps.creditBalance(organizationId)) - session.spent;
  if (balance <= 0) throw new BlockFailure('CREDITS_EXHAUSTED', `organization has no credits left (balance ${balance} tokens): an operator grants more with \`seqflow org credits --org <slug> --grant <tokens>\``, { reason: 'credits_exhausted' });
  const config = block.processor_config ?? {};
  const models = [model, ...(config.fallback_models ?? [])] as const;
  // A block without a model runs on the service's default, known only now: checked here (publish checked the rest).
  const misfit = llmSettingsProblems(model, config);
  if (misfit.length > 0) throw new BlockFailure('FLOW_INVALID', `block '${block.name}' cannot run on ${model}: ${misfit.join('; ')}`);
  const { text, missing } = renderTemplate(block.prompt ?? '', context);
  const system = config.system_prompt === undefined ? undefined : renderTemplate(config.system_prompt, context);
  const settings = { systemPrompt: system?.text, parameters: llmRequestParameters(model, config) };
  const providers = (session.providers ??= new Map());
  const accountFor = async (candidate: string) => {
    const { provider } = routeModel(candidate);
    if (!providers.has(provider)) providers.set(provider, deps.providerFor(organizationId, provider));
    const account = await providers.get(provider);
    if (!account) throw new BlockFailure('PROVIDER_NOT_CONFIGURED', `no account with the model provider ${provider} is configured for ${candidate} (${PROVIDER_SETTINGS[provider]})`);
    return account;
  };
  const attachments = block.processor_config?.receive_attachments === false ? [] : run.attachments;
  const ref = { executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
  const output = block.output_schema ? { schema: block.output_schema, plan: planStructuredOutput(block.output_schema) } : undefined;
  if (!conversation) {
    const input = { prompt: text, model, attachments: attachments.length, responseFormat: responseFormatOf(output), ...(settings.systemPrompt === undefined ? {} : { systemPrompt: settings.systemPrompt }), settings: settings.parameters };
    recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: 'llm', input, missingPlaceholders: [...new Set([...(system?.missing ?? []), ...missing])] } });
  }
  const blockStarted = performance.now();
  const toolbox = config.server_tools ? await failingTheStep(step, ref, blockStarted, () => openServerToolbox(step, config.server_tools!, blockStarted)) : null;
  try {
    return await converseWithTools(step, { model, models, text, settings, attachments, output, ref, blockStarted, accountFor }, toolbox);
  } finally {
    await toolbox?.close();
  }
}

interface Conversing {
  model: string;
  models: readonly [string, ...string[]];
  text: string;
  settings: LlmCall['settings'];
  attachments: LlmCall['attachments'];
  output: LlmCall['output'];
  ref: { executionId: string; stepIndex: number; blockId: string; blockName: string; iteration: number | null };
  blockStarted: number;
  accountFor: (candidate: string) => Promise<ProviderAccount>;
}

/**
 * The model's turns: each asks the model; a turn that calls only the block's server tools is
 * answered by the service and the model asked again; one that calls the caller's tools pauses the
 * run; one that answers completes the step.
 */
async function converseWithTools(step: BlockStep, c: Conversing, toolbox: ServerToolbox | null): Promise<unknown> {
  const { session, block, iteration, conversation, span, endsRun } = step;
  const { deps, run } = session;
  const { executionId, organizationId, recorder } = run;
  const { model, models, text, settings, attachments, output, ref, blockStarted, accountFor } = c;
  const config = block.processor_config ?? {};
  const offered = offeredTools(block.name, config.tools_enabled && run.tools ? run.tools : undefined, toolbox);
  // At the catalog's prices now: recorded, so a later price change never rewrites what this cost.
  const costOf = (usage: TokenUsage | null, answeredBy: string) => (usage && deps.catalog ? { costUsd: costUsd(deps.catalog.entry(answeredBy), usage) } : {});
  const charge = (usage: TokenUsage, answeredBy: string) => {
    session.spent += usage.totalTokens;
    return usage.totalTokens > 0 ? [{ type: 'CreditsConsumed' as const, data: { executionId, organizationId, blockName: block.name, model: answeredBy, tokens: usage.totalTokens, ...costOf(usage, answeredBy) } }] : [];
  };
  const fallbacksOf = (fellBack: FallenBack[] | undefined) => (fellBack && fellBack.length > 0 ? { fallbacks: fellBack } : {});
  // Each model request as an offset into this step: where it sits on the run's waterfall.
  const modelCallsOf = (calls: TimedModelCall[] | undefined) => (calls && calls.length > 0 ? { modelCalls: calls.map((c) => ({ startMs: Math.max(0, Math.round(c.startedAt - blockStarted)), durationMs: c.durationMs, outcome: c.outcome })) } : {});
  // Streamed only while a /step reader here listens to this run: a run nobody follows pays nothing for it.
  const streamed = deps.updates.tokens.listening(executionId) ? { onDelta: (delta: string) => deps.updates.tokens.publish(executionId, { stepId: block.id, blockName: block.name, iteration, delta }) } : {};
  const state = recorder.state();
  const iterationsBefore = state.status === 'none' ? 0 : (state.iterations.get(block.name) ?? 0);
  const limit = block.processor_config?.max_tool_iterations ?? DEFAULT_MAX_TOOL_ITERATIONS;
  // Model turns answered by server tools before this one: their tokens, cost and requests are the step's too.
  const earlier = { usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } as TokenUsage, costUsd: 0, calls: [] as TimedModelCall[] };
  // The step's cost: each turn at the prices of the model that answered it.
  const stepCostOf = (usage: TokenUsage | null, answeredBy: string) => {
    const last = costOf(usage, answeredBy);
    // No catalog: no cost; a model without a price: null, as for a step of one turn.
    return last.costUsd === undefined || last.costUsd === null ? last : { costUsd: earlier.costUsd + last.costUsd };
  };
  let messages = conversation;
  for (let round = 1; ; round++) {
    let answered;
    try {
      answered = await firstAnswering(models, async (candidate) => {
        const parameters = candidate === model ? settings.parameters : llmRequestParameters(candidate, config);
        return deps.llm.run({ blockName: block.name, model: candidate, prompt: text, attachments, output, settings: { ...settings, parameters }, tools: offered && { ...offered, conversation: messages }, ...streamed }, await accountFor(candidate), span);
      });
    } catch (error) {
      const usage = (error as { usage?: TokenUsage }).usage ?? null;
      const { model: failedOn = model, fellBack } = error as { model?: string; fellBack?: FallenBack[] };
      if (error instanceof BlockFailure) {
        // The step failed: every reply it got and its tokens are recorded with the charge, in one append.
        const attempts = (error as { attempts?: ModelAttempt[] }).attempts ?? [];
        const calls = [...earlier.calls, ...((error as { calls?: TimedModelCall[] }).calls ?? [])];
        const failed = { type: 'ExecutionStepFailed' as const, data: { ...ref, code: error.code, message: capFailureMessage(error.message), detail: capFailureDetail(error.detail), durationMs: Math.round(performance.now() - blockStarted), model: failedOn, usage: usage && addUsage(earlier.usage, usage), attempts, ...modelCallsOf(calls), ...stepCostOf(usage, failedOn), ...fallbacksOf(fellBack) } };
        await recorder.record(failed, ...(usage ? charge(usage, failedOn) : []));
      } else if (usage) await recorder.record(...charge(usage, failedOn));
      throw error;
    }
    const { result, model: answeredBy, fellBack, triedCalls } = answered;
    if (result.kind === 'tool_calls') {
      const iterationsUsed = iterationsBefore + round;
      if (iterationsUsed > limit) {
        if (result.usage.totalTokens > 0) await recorder.record(...charge(result.usage, answeredBy));
        throw new BlockFailure('TOOL_ITERATION_LIMIT', `block '${block.name}' reached its limit of ${limit} tool-call iterations`);
      }
      const own = result.toolCalls.filter((call) => toolbox?.owns(call.name));
      const callers = result.toolCalls.filter((call) => !toolbox?.owns(call.name));
      let toolCallMessages = result.conversation;
      if (own.length > 0) {
        // Charged with the step's next append; the calls are the service's to answer, now.
        recorder.note(...charge(result.usage, answeredBy));
        earlier.usage = addUsage(earlier.usage, result.usage);
        earlier.costUsd += costOf(result.usage, answeredBy).costUsd ?? 0;
        earlier.calls.push(...triedCalls);
        toolCallMessages = [...result.conversation, ...(await failingTheStep(step, ref, blockStarted, () => toolbox!.answer(own, round)))];
        if (callers.length === 0) {
          messages = toolCallMessages;
          continue;
        }
      }
      return pauseForCallerTools(step, { ...ref, iterationsUsed }, callers, toolCallMessages, own.length > 0 ? [] : charge(result.usage, answeredBy));
    }
    const completed = endsRun ? async (...events: Parameters<typeof recorder.record>) => recorder.note(...events) : recorder.record;
    const usage = addUsage(earlier.usage, result.usage);
    await completed(
      {
        type: 'ExecutionStepCompleted',
        data: { ...ref, output: result.output, model: answeredBy, usage, durationMs: Math.round(performance.now() - blockStarted), attempts: result.attempts, validationErrors: result.validationErrors, ...(result.rejected.length > 0 ? { rejectedReplies: result.rejected } : {}), ...modelCallsOf([...earlier.calls, ...triedCalls, ...(result.calls ?? [])]), ...stepCostOf(result.usage, answeredBy), ...fallbacksOf(fellBack) },
      },
      ...charge(result.usage, answeredBy),
    );
    return result.output;
  }
}

/** Work of the step beside its model calls (its server tools'): a BlockFailure of it is the step's failure, noted as such. */
async function failingTheStep<T>(step: BlockStep, ref: Conversing['ref'], blockStarted: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BlockFailure) noteStepFailed(step.session.run, ref, error, Math.round(performance.now() - blockStarted));
    throw error;
  }
}

const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({ promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, totalTokens: a.totalTokens + b.totalTokens });

/**
 * The tools the model is offered: the caller's (when the block enables them and the request sent
 * some) and the block's server tools. A caller's tool named as a server tool is refused: which
 * of the two a call meant could not be told.
 */
function offeredTools(blockName: string, caller: ToolRequest | undefined, toolbox: ServerToolbox | null): ToolRequest | undefined {
  if (!toolbox || toolbox.definitions.length === 0) return caller;
  const clash = caller?.tools.find((tool) => toolbox.owns(tool.function.name));
  if (clash) throw new BlockFailure('TOOLS_INVALID', `the request's tool '${clash.function.name}' has the name of a server tool of block '${blockName}'`);
  return { tools: [...(caller?.tools ?? []), ...toolbox.definitions], toolChoice: caller?.toolChoice ?? 'auto' };
}

/**
 * The run waits for the caller's tools (the spec's pause): the conversation it is handed holds any
 * server tools' answers of the same turn already, and the caller answers only its own calls.
 */
async function pauseForCallerTools(step: BlockStep, pauseRef: { executionId: string; stepIndex: number; blockId: string; blockName: string; iteration: number | null; iterationsUsed: number }, calls: RequestedToolCall[], conversation: ChatCompletionMessageParam[], charges: ExecutionEvent[]): Promise<never> {
  const { deps, run } = step.session;
  const { iterationsUsed, ...ref } = pauseRef;
  const pause: PauseData = {
    executionId: run.executionId,
    pausedAtStep: ref.blockName,
    iterationsUsed,
    toolCallMessages: conversation,
    toolCalls: calls.map((c) => ({ id: c.id, function: { name: c.name, arguments: c.arguments } })),
    accumulatedOutputs: { ...run.accumulated },
  };
  // Known to /step readers before the pause event is visible in the log.
  deps.updates.rememberPause(pause);
  try {
    await run.recorder.record(...charges, { type: 'ExecutionPausedForToolCalls', data: { ...ref, iterationsUsed, toolCalls: calls, messagesDigest: conversationDigest(conversation), messageCount: conversation.length } });
  } catch (error) {
    // Only this pause: a resume that lost a race must not take the winner's from /step readers.
    deps.updates.forgetPause(run.executionId, pause);
    throw error;
  }
  throw new PausedForTools(pause);
}

/** What the step event records of how the reply's shape was asked for. */
function responseFormatOf(output: { plan: StructuredOutputPlan } | undefined) {
  if (!output) return { type: 'text' };
  return output.plan.strict ? { type: 'json_schema', strict: true } : { type: 'json_schema', strict: false, reason: output.plan.reason };
}
