import { capFailureDetail, capFailureMessage } from '../../domain/execution/failureMessage.ts';
import type { ChildSpending } from '../../domain/blocks/flow/childSpending.ts';
import { BlockFailure } from '../processors/blockFailure.ts';
import type { BlockStep } from './blockRunner.ts';

/**
 * A step that runs without a model (passthrough, code): its start noted with its input, the work
 * done, and its completion (or, on a BlockFailure, its failure with why) noted for the next append.
 */
export async function runLocalStep({ session, block, stepIndex, iteration }: BlockStep, input: unknown, work: (input: unknown) => Promise<unknown>) {
  const { run } = session;
  const ref = { executionId: run.executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
  run.recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: block.processor_type, input, missingPlaceholders: [] } });
  const blockStarted = performance.now();
  let output: unknown;
  try {
    output = await work(input);
  } catch (error) {
    if (error instanceof BlockFailure) noteStepFailed(run, ref, error, Math.round(performance.now() - blockStarted));
    throw error;
  }
  run.recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: null, durationMs: Math.round(performance.now() - blockStarted), attempts: 1, validationErrors: [] } });
  return output;
}

/**
 * A step that called no model failed: noted with the run's failure, which appends it, so the step
 * shows as failed, with why. `spent`: what it spent through others (a flow step's child run).
 */
export function noteStepFailed(run: BlockStep['session']['run'], ref: { executionId: string; stepIndex: number; blockId: string; blockName: string; iteration: number | null }, failure: BlockFailure, durationMs: number, spent?: ChildSpending) {
  run.recorder.note({ type: 'ExecutionStepFailed', data: { ...ref, code: failure.code, message: capFailureMessage(failure.message), detail: capFailureDetail(failure.detail), durationMs, model: null, usage: spent?.usage ?? null, ...(spent ? { costUsd: spent.costUsd } : {}), attempts: [] } });
}
