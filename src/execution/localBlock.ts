import type { StoredBlock } from '../domain/flows/flowDefinition.ts';
import type { TemplateContext } from '../domain/templating/template.ts';
import type { RunSession } from './runContext.ts';
import { capFailureMessage } from '../domain/execution/failureMessage.ts';
import { BlockFailure } from './processors/blockFailure.ts';

/**
 * A block that runs without a model: `code` in the sandbox, with `{message, previous_output,
 * parameters}` as its input; `passthrough` forwards its input unchanged (the previous output, or the
 * message for a first block).
 */
export async function runLocalBlock(session: RunSession, block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null) {
  const { deps, run } = session;
  const input = block.processor_type === 'code' ? { message: context.message ?? null, previous_output: context.previous_output ?? null, parameters: context.parameters } : (context.previous_output ?? context.message ?? null);
  const ref = { executionId: run.executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
  run.recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: block.processor_type, input, missingPlaceholders: [] } });
  const blockStarted = performance.now();
  let output: unknown;
  try {
    output = block.processor_type === 'code' ? await deps.sandbox.run(block.code ?? '', input, run.organizationId) : input;
  } catch (error) {
    // Noted with the run's failure, which appends it: the step shows as failed, with why.
    if (error instanceof BlockFailure) {
      run.recorder.note({ type: 'ExecutionStepFailed', data: { ...ref, code: error.code, message: capFailureMessage(error.message), durationMs: Math.round(performance.now() - blockStarted), model: null, usage: null, attempts: [] } });
    }
    throw error;
  }
  run.recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: null, durationMs: Math.round(performance.now() - blockStarted), attempts: 1, validationErrors: [] } });
  return output;
}
