import type { Kysely } from 'kysely';
import type { Config } from '../config/config.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import type { Attachment } from '../domain/execution/attachment.ts';
import type { FailureReason, TokenUsage } from '../domain/execution/executionEvents.ts';
import { type StoredBlock, type StoredStep, blocksOfStep } from '../domain/flows/flowDefinition.ts';
import { type TemplateContext, lookupPath, renderTemplate } from '../domain/templating/template.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { creditBalance } from '../queries/creditQueries.ts';
import { createExecutionRecorder } from './executionRecorder.ts';
import { BlockFailure } from './processors/blockFailure.ts';
import type { CodeSandbox } from './processors/codeSandboxPool.ts';
import type { LlmProcessor, ProviderAccount } from './processors/llmProcessor.ts';

export interface EngineDependencies {
  eventStore: EventStore;
  db: Kysely<ReadModels>;
  now: () => Date;
  llm: LlmProcessor;
  sandbox: CodeSandbox;
  settings: Config['execution'];
  /** The provider account for an organization's llm calls (its own key, or the service's), if any. */
  providerFor: (organizationId: string) => Promise<ProviderAccount | undefined>;
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
  mode: 'sync' | 'async' | 'step';
  apiKeyId: string | null;
  principal: Principal;
}

export type ExecutionOutcome =
  | { status: 'completed'; executionId: string; result: unknown; position: number }
  | { status: 'failed'; executionId: string; reason: FailureReason; code: string; message: string; stepIndex: number | null; blockName: string | null; position: number };

export const countBlocks = (steps: StoredStep[]) => steps.reduce((n, step) => n + blocksOfStep(step).length, 0);

/** Items of a loop step run this many at a time; their results keep the items' order. */
const LOOP_CONCURRENCY = 4;

/**
 * Runs a version's steps in order and records every fact in the run's stream: requested, each block
 * started and completed (input, output, model, tokens, duration), credits consumed, and one terminal
 * event. Block failures end the run as `failed` with a reason; they are outcomes, not exceptions.
 */
export async function runExecution(deps: EngineDependencies, request: ExecutionRequest): Promise<ExecutionOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const recorder = createExecutionRecorder(deps.eventStore, request.executionId, request.principal, deps.now);
  const { executionId, organizationId } = request;
  let spent = 0;
  let provider: Promise<ProviderAccount | undefined> | undefined;

  await recorder.note({
    type: 'ExecutionRequested',
    data: {
      executionId,
      flowId: request.flowId,
      versionId: request.versionId,
      versionNumber: request.versionNumber,
      organizationId,
      projectId: request.projectId,
      mode: request.mode,
      message: request.message,
      parameters: request.parameters,
      attachments: request.attachments,
      apiKeyId: request.apiKeyId,
      blockCount: countBlocks(request.steps),
    },
  });

  async function runLlm(block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null) {
    const model = block.model ?? deps.settings.defaultModel;
    const balance = (await creditBalance(deps.db, organizationId)) - spent;
    if (balance <= 0) throw new BlockFailure('CREDITS_EXHAUSTED', `organization has no credits left (balance ${balance} tokens)`, 'credits_exhausted');
    const account = await (provider ??= deps.providerFor(organizationId));
    if (!account) throw new BlockFailure('PROVIDER_NOT_CONFIGURED', 'no model provider is configured (OPENAI_BASE_URL/OPENAI_API_KEY, or an organization key)');

    const { text, missing } = renderTemplate(block.prompt ?? '', context);
    const attachments = block.processor_config?.receive_attachments === false ? [] : request.attachments;
    const ref = { executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
    await recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: 'llm', input: { prompt: text, model, attachments: attachments.length }, missingPlaceholders: missing } });
    const blockStarted = performance.now();
    const charge = async (usage: TokenUsage) => {
      if (usage.totalTokens <= 0) return;
      spent += usage.totalTokens;
      await recorder.record({ type: 'CreditsConsumed', data: { executionId, organizationId, blockName: block.name, model, tokens: usage.totalTokens } });
    };
    try {
      const result = await deps.llm.run({ blockName: block.name, model, prompt: text, attachments, outputSchema: block.output_schema }, account);
      await recorder.record(
        { type: 'ExecutionStepCompleted', data: { ...ref, output: result.output, model, usage: result.usage, durationMs: Math.round(performance.now() - blockStarted), attempts: result.attempts } },
        ...(result.usage.totalTokens > 0 ? [{ type: 'CreditsConsumed' as const, data: { executionId, organizationId, blockName: block.name, model, tokens: result.usage.totalTokens } }] : []),
      );
      spent += result.usage.totalTokens;
      return result.output;
    } catch (error) {
      const usage = (error as { usage?: TokenUsage }).usage;
      if (usage) await charge(usage);
      throw error;
    }
  }

  async function runLocal(block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null) {
    const input = block.processor_type === 'code' ? { message: context.message ?? null, previous_output: context.previous_output ?? null, parameters: context.parameters } : (context.previous_output ?? context.message ?? null);
    const ref = { executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
    await recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: block.processor_type, input, missingPlaceholders: [] } });
    const blockStarted = performance.now();
    // passthrough forwards its input unchanged: the previous output, or the message for a first block.
    const output = block.processor_type === 'code' ? await deps.sandbox.run(block.code ?? '', input) : input;
    await recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: null, durationMs: Math.round(performance.now() - blockStarted), attempts: 1 } });
    return output;
  }

  const runBlock = (block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null) =>
    (block.processor_type === 'llm' ? runLlm(block, context, stepIndex, iteration) : runLocal(block, context, stepIndex, iteration)).catch((error: unknown) => {
      throw error instanceof BlockFailure ? Object.assign(error, { stepIndex, blockName: block.name }) : error;
    });

  let previous: unknown = undefined;
  try {
    for (const [stepIndex, step] of request.steps.entries()) {
      const context: TemplateContext = { message: request.message ?? undefined, previous_output: previous, parameters: request.parameters };
      if ('parallel' in step) {
        // Every sibling finishes (and records) before a failure ends the run.
        const outputs = await settleAll(step.parallel.map((block) => runBlock(block, context, stepIndex, null)));
        previous = Object.fromEntries(step.parallel.map((block, i) => [block.name, outputs[i]]));
      } else if ('loop' in step) {
        previous = await runLoop(step.loop, context, stepIndex);
      } else {
        previous = await runBlock(step.block, context, stepIndex, null);
      }
    }
    const position = await recorder.record({ type: 'ExecutionCompleted', data: { executionId, result: previous ?? null, durationMs: elapsed() } });
    return { status: 'completed', executionId, result: previous ?? null, position };
  } catch (error) {
    const failure = error instanceof BlockFailure ? error : new BlockFailure('INTERNAL', `internal error: ${(error as Error).message}`);
    const where = failure as BlockFailure & { stepIndex?: number; blockName?: string };
    const data = { executionId, reason: failure.reason, code: failure.code, message: failure.message, stepIndex: where.stepIndex ?? null, blockName: where.blockName ?? null, durationMs: elapsed() };
    const position = await recorder.record({ type: 'ExecutionFailed', data });
    return { status: 'failed', ...data, position };
  }

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
}


/** Like Promise.all, but waits for every promise before throwing the first failure. */
async function settleAll<T>(promises: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
