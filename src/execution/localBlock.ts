import type { StoredBlock } from '../domain/flows/flowDefinition.ts';
import type { TemplateContext } from '../domain/templating/template.ts';
import type { RunSession } from './runContext.ts';
import type { BlockReferences } from '../domain/flows/stepReferences.ts';
import { setOwn } from '../domain/ownProperty.ts';
import { capFailureDetail, capFailureMessage } from '../domain/execution/failureMessage.ts';
import { BlockFailure } from './processors/blockFailure.ts';

/**
 * A block that runs without a model: `code` in the sandbox, with `{message, previous_output,
 * parameters, steps}` as its input; `passthrough` forwards its input unchanged (the previous output, or the
 * message for a first block). `steps` holds the outputs of the earlier blocks the code names (all of
 * them when it reads `input.steps` in a way parsing cannot follow), so the recorded input holds what
 * the code could read, and no more.
 */
export async function runLocalBlock(session: RunSession, block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null) {
  const { deps, run } = session;
  const input = block.processor_type === 'code' ? { message: context.message ?? null, previous_output: context.previous_output ?? null, parameters: context.parameters, steps: stepsRead(deps.references(block), context.steps) } : (context.previous_output ?? context.message ?? null);
  const ref = { executionId: run.executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
  run.recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: block.processor_type, input, missingPlaceholders: [] } });
  const blockStarted = performance.now();
  let output: unknown;
  try {
    output = block.processor_type === 'code' ? await deps.sandbox.run(block.code ?? '', input, run.organizationId) : input;
  } catch (error) {
    // Noted with the run's failure, which appends it: the step shows as failed, with why.
    if (error instanceof BlockFailure) {
      run.recorder.note({ type: 'ExecutionStepFailed', data: { ...ref, code: error.code, message: capFailureMessage(error.message), detail: capFailureDetail(error.detail), durationMs: Math.round(performance.now() - blockStarted), model: null, usage: null, attempts: [] } });
    }
    throw error;
  }
  run.recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: null, durationMs: Math.round(performance.now() - blockStarted), attempts: 1, validationErrors: [] } });
  return output;
}

function stepsRead(references: BlockReferences, outputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (references.all) return { ...outputs };
  const read: Record<string, unknown> = {};
  for (const name of references.names) if (Object.hasOwn(outputs, name)) setOwn(read, name, outputs[name]);
  return read;
}
