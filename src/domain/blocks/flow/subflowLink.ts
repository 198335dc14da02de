import { z } from 'zod';
import { nameBasedId } from '../../nameBasedId.ts';
import { aName, anId } from '../../privacy/operationalText.ts';

/**
 * How deep sub-flows nest: a run's child is at depth 1, its grandchild at 2. A chain of `flow`
 * blocks deeper than this is refused at publish, and a run that would start a child past it fails
 * (SUBFLOW_DEPTH_EXCEEDED): a cycle that slipped past the publish checks ends there.
 */
export const MAX_SUBFLOW_DEPTH = 4;

/** A child run's link to the run that started it (ExecutionRequested v8 `parent`): which block of which run, and how deep it is. */
export const parentLinkSchema = z.object({
  executionId: anId(),
  stepIndex: z.number().int().min(0),
  blockName: aName(),
  iteration: z.number().int().nullable(),
  depth: z.number().int().min(1),
});
export type ParentLink = z.infer<typeof parentLinkSchema>;

/**
 * The child run's id: named by the parent run and the block execution that starts it, so a worker
 * that takes the parent over after a crash finds the child its predecessor started (and continues
 * it) instead of starting a second one.
 */
export const childExecutionId = (parentExecutionId: string, stepIndex: number, blockName: string, iteration: number | null): string =>
  nameBasedId('subflow', parentExecutionId, String(stepIndex), blockName, iteration === null ? '' : String(iteration));

/** One execution of a `flow` block within its run, as the run's history keys its link: `stepIndex|blockName|iteration`. */
export const subflowKey = (stepIndex: number, blockName: string, iteration: number | null) => `${stepIndex}|${blockName}|${iteration ?? ''}`;
