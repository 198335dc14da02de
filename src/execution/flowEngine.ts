import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { loadStream } from '../commands/commandHandler.ts';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Config } from '../config/config.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import type { Attachment } from '../domain/execution/attachment.ts';
import { execution } from '../domain/execution/execution.ts';
import { type ExecutionEvent, type FailureReason, type RequestedToolCall, type TokenUsage, type WebhookEventName, executionStream } from '../domain/execution/executionEvents.ts';
import { setOwn } from '../domain/ownProperty.ts';
import { type ResultObject, resultObject } from '../domain/execution/outputShape.ts';
import { type StructuredOutputPlan, planStructuredOutput } from '../domain/execution/strictSchema.ts';
import { DEFAULT_MAX_TOOL_ITERATIONS, type StoredBlock, type StoredStep, countBlocks } from '../domain/flows/flowDefinition.ts';
import { type TemplateContext, lookupPath, renderTemplate } from '../domain/templating/template.ts';
import { conversationDigest } from '../domain/tools/conversationDigest.ts';
import type { Tool, ToolChoice } from '../domain/tools/toolRules.ts';
import { type EventStore, WrongExpectedRevision } from '../eventstore/eventStore.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { creditBalance } from '../queries/creditQueries.ts';
import { type ExecutionRecorder, createExecutionRecorder } from './executionRecorder.ts';
import type { PauseData } from './pauseData.ts';
import { executionUpdates } from './executionUpdates.ts';
import { BlockFailure } from './processors/blockFailure.ts';
import type { CodeSandbox } from './processors/codeSandboxPool.ts';
import type { LlmProcessor, ProviderAccount } from './processors/llmProcessor.ts';

export interface EngineDependencies {
  eventStore: EventStore;
  /** Where internal errors are logged in full (the run records only their error id). */
  logger: Logger;
  db: Kysely<ReadModels>;
  now: () => Date;
  llm: LlmProcessor;
  sandbox: CodeSandbox;
  settings: Config['execution'];
  /** The provider account for an organization's llm calls (its own key, or the service's), if any. */
  providerFor: (organizationId: string) => Promise<ProviderAccount | undefined>;
}

export interface ToolRequest {
  tools: Tool[];
  toolChoice: ToolChoice;
}

export interface ExecutionRequest {
  executionId: string;
  flowId: string;
  versionId: string;
  versionNumber: number;
  organizationId: string;
  projectId: string;
  steps: StoredStep[];
  message: string | null;
  parameters: Record<string, unknown>;
  attachments: Attachment[];
  tools: ToolRequest | undefined;
  mode: 'sync' | 'async' | 'step';
  apiKeyId: string | null;
  principal: Principal;
  /** /jobs only: where and for which terminal events to send webhooks. */
  callback?: { url: string; events: WebhookEventName[] } | null;
}

export interface ResumeInput {
  executionId: string;
  flowId: string;
  pausedAtStep: string;
  toolCallMessages: unknown[];
  tools: ToolRequest;
  principal: Principal;
  /** The steps of a version, by id (versions are immutable). */
  loadSteps: (versionId: string) => Promise<StoredStep[]>;
}


export type ExecutionOutcome =
  | { status: 'completed'; executionId: string; result: ResultObject; position: number }
  | ({ status: 'paused'; position: number } & PauseData)
  | { status: 'failed'; executionId: string; reason: FailureReason; code: string; message: string; stepIndex: number | null; blockName: string | null; position: number };

/** Items of a loop step run this many at a time; their results keep the items' order. */
const LOOP_CONCURRENCY = 4;

/** Ends the run's steps for now: a tools-enabled block waits for the caller's tool results. */
class PausedForTools extends Error {
  constructor(readonly pause: PauseData) {
    super('paused for tool calls');
  }
}

interface RunContext {
  executionId: string;
  organizationId: string;
  steps: StoredStep[];
  message: string | null;
  parameters: Record<string, unknown>;
  attachments: Attachment[];
  tools: ToolRequest | undefined;
  recorder: ExecutionRecorder;
  /** Outputs of completed blocks by name (for pause responses). */
  accumulated: Record<string, unknown>;
  /** Blocks a taken-over run already completed, by `stepIndex|blockName|iteration`: not run (or paid for) again. */
  completed?: Map<string, unknown>;
}

const blockKey = (stepIndex: number, blockName: string, iteration: number | null) => `${stepIndex}|${blockName}|${iteration ?? ''}`;

/** A run that has passed every check and is ready to go; `start` runs it (and may outlive the request). */
export interface PreparedRun {
  executionId: string;
  /** The stream revision before this call's first event: a follower reads what comes after it. */
  afterRevision: number;
  /** Settles once `start` has written the run's first event, or fails with `start` if it could not. */
  started: Promise<void>;
  start: () => Promise<ExecutionOutcome>;
}

/**
 * Accepts a /jobs run: its ExecutionRequested is written durably and nothing else happens; a job
 * runner takes it from there (continueExecution).
 */
export async function acceptJob(deps: EngineDependencies, request: ExecutionRequest): Promise<number> {
  const recorder = createExecutionRecorder(deps.eventStore, request.executionId, request.principal, deps.now);
  return recorder.record(requestedEvent(request));
}

const requestedEvent = (request: ExecutionRequest): ExecutionEvent => ({
  type: 'ExecutionRequested',
  data: {
    executionId: request.executionId,
    flowId: request.flowId,
    versionId: request.versionId,
    versionNumber: request.versionNumber,
    organizationId: request.organizationId,
    projectId: request.projectId,
    mode: request.mode,
    message: request.message,
    parameters: request.parameters,
    attachments: request.attachments,
    apiKeyId: request.apiKeyId,
    blockCount: countBlocks(request.steps),
    callbackUrl: request.callback?.url ?? null,
    callbackEvents: request.callback?.events ?? [],
  },
});

export async function prepareExecution(deps: EngineDependencies, request: ExecutionRequest): Promise<PreparedRun> {
  const recorder = createExecutionRecorder(deps.eventStore, request.executionId, request.principal, deps.now);
  const started: { promise?: Promise<void>; resolve?: () => void; reject?: (error: unknown) => void } = {};
  started.promise = new Promise<void>((resolve, reject) => Object.assign(started, { resolve, reject }));
  started.promise.catch(() => undefined); // observed by whoever awaits `started`
  return {
    executionId: request.executionId,
    afterRevision: -1,
    started: started.promise,
    start: async () => {
      try {
        await recorder.note(requestedEvent(request));
        started.resolve!();
      } catch (error) {
        started.reject!(error);
        throw error;
      }
      return runSteps(deps, { ...request, recorder, accumulated: {} }, 0, undefined, undefined);
    },
  };
}

/**
 * Continues a paused run with the caller's tool results: checks the resume and records it (so a
 * second resume of the same pause fails here); `start` goes on with the run. Everything it trusts
 * comes from the run's own events: the version, the input, the earlier outputs, the iteration count,
 * and the pause the results must answer (the decider checks it). Two racing resumes append against
 * the same revision: one wins, the other gets EXECUTION_ID_INVALID.
 */
export async function prepareResume(deps: EngineDependencies, input: ResumeInput): Promise<PreparedRun> {
  const { state, revision, events } = await loadStream(deps.eventStore, executionStream(input.executionId), execution);
  if (state.status === 'none' || state.flowId !== input.flowId) throw new ApiError('EXECUTION_ID_INVALID', 'executionId does not match a run of this flow');
  const steps = await input.loadSteps(state.versionId);
  const pausable = steps.some((step) => 'block' in step && step.block.name === input.pausedAtStep && step.block.processor_config?.tools_enabled);
  if (!pausable) throw new ApiError('PAUSED_STEP_INVALID', `pausedAtStep '${input.pausedAtStep}' is not a tools-enabled block of the version this run executes`);

  const recorder = createExecutionRecorder(deps.eventStore, input.executionId, input.principal, deps.now, { state, revision });
  try {
    await recorder.resume({ pausedAtStep: input.pausedAtStep, toolCallMessages: input.toolCallMessages }, input.flowId);
  } catch (error) {
    if (error instanceof WrongExpectedRevision) throw new ApiError('EXECUTION_ID_INVALID', 'this pause has already been resumed');
    throw error;
  }

  const requested = requestOf(events);
  const pause = state.status === 'paused' && state.pause ? state.pause : undefined;
  const stepIndex = pause!.stepIndex;
  const { accumulated, outputOfStep } = outputsFromEvents(events, steps);
  executionUpdates.forgetPause(input.executionId);
  return {
    executionId: input.executionId,
    afterRevision: revision,
    started: Promise.resolve(), // the resume is recorded above
    start: () =>
      runSteps(
        deps,
        { executionId: input.executionId, organizationId: state.organizationId, steps, message: requested.message, parameters: requested.parameters, attachments: requested.attachments, tools: input.tools, recorder, accumulated },
        stepIndex,
        stepIndex === 0 ? undefined : outputOfStep(stepIndex - 1),
        input.toolCallMessages as ChatCompletionMessageParam[],
      ),
  };
}

/**
 * Takes over an accepted or interrupted run (a /jobs run whose worker died): continues from the run's
 * own events. Blocks already completed keep their recorded output and are neither run nor paid for
 * again; `claim` is recorded first, so a previous worker that is still alive finds the stream moved
 * and stops at its next append. Returns undefined when the run has already ended.
 */
export async function continueExecution(
  deps: EngineDependencies,
  input: { executionId: string; worker: string; claim: number; principal: Principal; loadSteps: (versionId: string) => Promise<StoredStep[]> },
): Promise<ExecutionOutcome | undefined> {
  const { state, revision, events } = await loadStream(deps.eventStore, executionStream(input.executionId), execution);
  if (state.status !== 'running') return undefined;
  const recorder = createExecutionRecorder(deps.eventStore, input.executionId, input.principal, deps.now, { state, revision });
  await recorder.record({ type: 'JobClaimed', data: { executionId: input.executionId, worker: input.worker, claim: input.claim } });

  const steps = await input.loadSteps(state.versionId);
  const requested = requestOf(events);
  const completed = new Map(completedSteps(events).map((c) => [blockKey(c.stepIndex, c.blockName, c.iteration), c.output] as const));
  return runSteps(
    deps,
    { executionId: input.executionId, organizationId: state.organizationId, steps, message: requested.message, parameters: requested.parameters, attachments: requested.attachments, tools: undefined, recorder, accumulated: {}, completed },
    0,
    undefined,
    undefined,
  );
}

/** The run's input, from its ExecutionRequested (decoded). */
function requestOf(events: ExecutionEvent[]) {
  const requested = events.find((e) => e.type === 'ExecutionRequested');
  if (requested?.type !== 'ExecutionRequested') throw new Error('the run has no ExecutionRequested');
  return requested.data;
}

const completedSteps = (events: ExecutionEvent[]) => events.flatMap((e) => (e.type === 'ExecutionStepCompleted' ? [e.data] : []));

/** Earlier blocks' outputs, rebuilt from the run's ExecutionStepCompleted events. */
function outputsFromEvents(events: ExecutionEvent[], steps: StoredStep[]) {
  const completed = completedSteps(events);
  const accumulated = Object.fromEntries(completed.filter((c) => c.iteration === null).map((c) => [c.blockName, c.output]));
  const outputOfStep = (index: number): unknown => {
    const step = steps[index]!;
    const ofStep = completed.filter((c) => c.stepIndex === index);
    if ('parallel' in step) return Object.fromEntries(step.parallel.map((b) => [b.name, ofStep.find((c) => c.blockName === b.name)?.output]));
    if ('loop' in step) return [...ofStep].sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0)).map((c) => c.output);
    return ofStep[0]?.output;
  };
  return { accumulated, outputOfStep };
}

/**
 * Runs a version's steps in order and records every fact in the run's stream: requested, each block
 * started and completed (input, output, model, tokens, duration), credits consumed, tool pauses and
 * resumes, and one terminal event. Block failures end the run as `failed` with a reason; a tool
 * pause ends the call with the pause data, and `prepareResume` goes on from there.
 */
async function runSteps(
  deps: EngineDependencies,
  run: RunContext,
  fromStep: number,
  initialPrevious: unknown,
  resumeConversation: ChatCompletionMessageParam[] | undefined,
): Promise<ExecutionOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { executionId, organizationId, recorder } = run;
  let spent = 0;
  let provider: Promise<ProviderAccount | undefined> | undefined;

  async function runLlm(block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null, conversation?: ChatCompletionMessageParam[]) {
    const model = block.model ?? deps.settings.defaultModel;
    const balance = (await creditBalance(deps.db, organizationId)) - spent;
    if (balance <= 0) throw new BlockFailure('CREDITS_EXHAUSTED', `organization has no credits left (balance ${balance} tokens): an operator grants more with \`seqflow org credits --org <slug> --grant <tokens>\``, 'credits_exhausted');
    const account = await (provider ??= deps.providerFor(organizationId));
    if (!account) throw new BlockFailure('PROVIDER_NOT_CONFIGURED', 'no model provider is configured (OPENAI_BASE_URL/OPENAI_API_KEY, or an organization key)');

    const { text, missing } = renderTemplate(block.prompt ?? '', context);
    const attachments = block.processor_config?.receive_attachments === false ? [] : run.attachments;
    const ref = { executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
    const output = block.output_schema ? { schema: block.output_schema, plan: planStructuredOutput(block.output_schema) } : undefined;
    if (!conversation) {
      await recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: 'llm', input: { prompt: text, model, attachments: attachments.length, responseFormat: responseFormatOf(output) }, missingPlaceholders: missing } });
    }
    const tools = block.processor_config?.tools_enabled && run.tools ? { ...run.tools, conversation } : undefined;
    const blockStarted = performance.now();
    const charge = (usage: TokenUsage) => {
      spent += usage.totalTokens;
      return usage.totalTokens > 0 ? [{ type: 'CreditsConsumed' as const, data: { executionId, organizationId, blockName: block.name, model, tokens: usage.totalTokens } }] : [];
    };
    let result;
    try {
      result = await deps.llm.run({ blockName: block.name, model, prompt: text, attachments, output, tools }, account);
    } catch (error) {
      const usage = (error as { usage?: TokenUsage }).usage;
      if (usage) await recorder.record(...charge(usage));
      throw error;
    }
    if (result.kind === 'tool_calls') {
      const state = recorder.state();
      const iterationsUsed = (state.status === 'none' ? 0 : (state.iterations.get(block.name) ?? 0)) + 1;
      const limit = block.processor_config?.max_tool_iterations ?? DEFAULT_MAX_TOOL_ITERATIONS;
      if (iterationsUsed > limit) {
        if (result.usage.totalTokens > 0) await recorder.record(...charge(result.usage));
        throw new BlockFailure('TOOL_ITERATION_LIMIT', `block '${block.name}' reached its limit of ${limit} tool-call iterations`);
      }
      const pause: PauseData = {
        executionId,
        pausedAtStep: block.name,
        iterationsUsed,
        toolCallMessages: result.conversation,
        toolCalls: result.toolCalls.map((c: RequestedToolCall) => ({ id: c.id, function: { name: c.name, arguments: c.arguments } })),
        accumulatedOutputs: { ...run.accumulated },
      };
      // Known to /step readers before the pause event is visible in the log.
      executionUpdates.rememberPause(pause);
      try {
        await recorder.record(...charge(result.usage), {
          type: 'ExecutionPausedForToolCalls',
          data: { ...ref, iterationsUsed, toolCalls: result.toolCalls, messagesDigest: conversationDigest(result.conversation), messageCount: result.conversation.length },
        });
      } catch (error) {
        executionUpdates.forgetPause(executionId);
        throw error;
      }
      throw new PausedForTools(pause);
    }
    await recorder.record(
      { type: 'ExecutionStepCompleted', data: { ...ref, output: result.output, model, usage: result.usage, durationMs: Math.round(performance.now() - blockStarted), attempts: result.attempts } },
      ...charge(result.usage),
    );
    return result.output;
  }

  async function runLocal(block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null) {
    const input = block.processor_type === 'code' ? { message: context.message ?? null, previous_output: context.previous_output ?? null, parameters: context.parameters } : (context.previous_output ?? context.message ?? null);
    const ref = { executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
    await recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: block.processor_type, input, missingPlaceholders: [] } });
    const blockStarted = performance.now();
    // passthrough forwards its input unchanged: the previous output, or the message for a first block.
    const output = block.processor_type === 'code' ? await deps.sandbox.run(block.code ?? '', input, organizationId) : input;
    await recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: null, durationMs: Math.round(performance.now() - blockStarted), attempts: 1 } });
    return output;
  }

  const runBlock = async (block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null, conversation?: ChatCompletionMessageParam[]) => {
    const key = blockKey(stepIndex, block.name, iteration);
    if (run.completed?.has(key)) {
      const output = run.completed.get(key);
      if (iteration === null) setOwn(run.accumulated, block.name, output);
      return output;
    }
    try {
      const output = block.processor_type === 'llm' ? await runLlm(block, context, stepIndex, iteration, conversation) : await runLocal(block, context, stepIndex, iteration);
      if (iteration === null) setOwn(run.accumulated, block.name, output);
      return output;
    } catch (error) {
      throw error instanceof BlockFailure ? Object.assign(error, { stepIndex, blockName: block.name }) : error;
    }
  };

  async function runLoop(loop: { over: string; block: StoredBlock }, context: TemplateContext, stepIndex: number) {
    const [root, ...path] = loop.over.split('.');
    const items = lookupPath(root === 'parameters' ? context.parameters : context.previous_output, path);
    if (!Array.isArray(items)) {
      throw Object.assign(new BlockFailure('LOOP_INPUT_INVALID', `loop over ${loop.over}: expected an array, found ${items === undefined ? 'nothing' : typeof items}`), { stepIndex, blockName: loop.block.name });
    }
    if (items.length > deps.settings.loopMaxItems) {
      throw Object.assign(new BlockFailure('LOOP_LIMIT_EXCEEDED', `loop over ${loop.over}: ${items.length} items, at most ${deps.settings.loopMaxItems}`), { stepIndex, blockName: loop.block.name });
    }
    const results: unknown[] = new Array(items.length);
    let next = 0;
    let failed = false;
    await settleAll(
      Array.from({ length: Math.min(LOOP_CONCURRENCY, items.length) }, async () => {
        while (next < items.length && !failed) {
          const index = next++;
          try {
            results[index] = await runBlock(loop.block, { ...context, previous_output: items[index] }, stepIndex, index);
          } catch (error) {
            failed = true; // no new items start; those in flight finish
            throw error;
          }
        }
      }),
    );
    return results;
  }

  let previous: unknown = initialPrevious;
  try {
    for (let stepIndex = fromStep; stepIndex < run.steps.length; stepIndex++) {
      const step = run.steps[stepIndex]!;
      const context: TemplateContext = { message: run.message ?? undefined, previous_output: previous, parameters: run.parameters };
      if ('parallel' in step) {
        // Every sibling finishes (and records) before a failure ends the run.
        const outputs = await settleAll(step.parallel.map((block) => runBlock(block, context, stepIndex, null)));
        previous = Object.fromEntries(step.parallel.map((block, i) => [block.name, outputs[i]]));
      } else if ('loop' in step) {
        previous = await runLoop(step.loop, context, stepIndex);
      } else {
        previous = await runBlock(step.block, context, stepIndex, null, stepIndex === fromStep ? resumeConversation : undefined);
      }
    }
    const result = resultObject(previous);
    const position = await recorder.record({ type: 'ExecutionCompleted', data: { executionId, result, durationMs: elapsed() } });
    return { status: 'completed', executionId, result, position };
  } catch (error) {
    if (error instanceof PausedForTools) return { status: 'paused', ...error.pause, position: recorder.position() };
    const failure = error instanceof BlockFailure && error.code !== 'INTERNAL' ? error : internalFailure(deps.logger, error, executionId);
    const where = failure as BlockFailure & { stepIndex?: number; blockName?: string };
    const data = { executionId, reason: failure.reason, code: failure.code, message: failure.message, stepIndex: where.stepIndex ?? null, blockName: where.blockName ?? null, durationMs: elapsed() };
    // If the log itself failed, this record fails too and the error reaches the caller as a 500.
    const position = await recorder.record({ type: 'ExecutionFailed', data });
    return { status: 'failed', ...data, position };
  }
}

/** Like Promise.all, but waits for every promise before throwing the first failure. */
async function settleAll<T>(promises: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

/** What the step event records of how the reply's shape was asked for. */
function responseFormatOf(output: { plan: StructuredOutputPlan } | undefined) {
  if (!output) return { type: 'text' };
  return output.plan.strict ? { type: 'json_schema', strict: true } : { type: 'json_schema', strict: false, reason: output.plan.reason };
}

/**
 * An error that is not the block's fault: its text stays in the server log (under an error id) and
 * never reaches the caller or the event log, which get the id only.
 */
function internalFailure(logger: Logger, error: unknown, executionId: string): BlockFailure {
  const errorId = randomUUID();
  const cause = error instanceof BlockFailure && error.cause !== undefined ? error.cause : error;
  logger.error({ err: cause, errorId, executionId }, 'run failed with an internal error');
  const failure = new BlockFailure('INTERNAL', `internal error (error id ${errorId})`);
  if (error instanceof BlockFailure) Object.assign(failure, { stepIndex: (error as { stepIndex?: number }).stepIndex, blockName: (error as { blockName?: string }).blockName });
  return failure;
}
