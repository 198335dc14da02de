import { z } from 'zod';
import { slugSchema } from '../slugs/slug.ts';
import { processorConfigShape, processorTypes } from '../blocks/blockKinds.ts';
import { RUN_CONDITION_MAX_LENGTH } from './runCondition.ts';
import { formatPath } from '../validation/issuePath.ts';

export { processorTypes };

/**
 * The flow file (import/export) and the draft share one shape: an ordered list of steps, each one
 * block, several blocks in parallel, or a loop over one block. Objects are strict, so an unknown
 * field is refused with its path.
 */
export const BLOCK_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
export const DEFAULT_MAX_TOOL_ITERATIONS = 25;
/** Paths a loop may iterate over: `previous_output[.field...]` or `parameters.name[.field...]`. */
export const LOOP_OVER_PATTERN = /^(previous_output|parameters)(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

/** Every kind's `processor_config` keys together (each kind's own are in its folder, src/domain/blocks/). */
export const processorConfigSchema = z.strictObject(processorConfigShape);

export const blockSchema = z.strictObject({
  name: z.string().regex(BLOCK_NAME_PATTERN, 'must match ^[A-Za-z_][A-Za-z0-9_-]{0,63}$'),
  processor_type: z.enum(processorTypes),
  prompt: z.string().optional(),
  output_schema: z.record(z.string(), z.unknown()).optional(),
  model: z.string().min(1).optional(),
  code: z.string().optional(),
  processor_config: processorConfigSchema.optional(),
  /** Whether the block runs: a condition over the run's context (runCondition.ts), checked at publish. */
  run_if: z.string().max(RUN_CONDITION_MAX_LENGTH).optional(),
});
export type Block = z.infer<typeof blockSchema>;

export const loopSchema = z.strictObject({
  over: z.string().regex(LOOP_OVER_PATTERN, 'must be a path such as previous_output.items or parameters.list'),
  block: blockSchema,
});

export const stepSchema = z
  .strictObject({
    block: blockSchema.optional(),
    parallel: z.array(blockSchema).min(1).optional(),
    loop: loopSchema.optional(),
    /** A parallel step's condition: when false, none of its blocks runs. A single block carries its own. */
    run_if: z.string().max(RUN_CONDITION_MAX_LENGTH).optional(),
  })
  .superRefine((step, ctx) => {
    const kinds = (['block', 'parallel', 'loop'] as const).filter((kind) => step[kind] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({ code: 'custom', message: 'a step has exactly one of block, parallel or loop' });
    }
    if (step.run_if !== undefined && step.parallel === undefined) {
      ctx.addIssue({ code: 'custom', path: ['run_if'], message: "only a parallel step carries run_if; a block's goes on the block" });
    }
  });
export type Step = z.infer<typeof stepSchema>;

export const flowFileSchema = z.strictObject({
  slug: slugSchema,
  name: z.string().min(1).max(200),
  steps: z.array(stepSchema),
});
export type FlowFile = z.infer<typeof flowFileSchema>;

/** Blocks as stored in the draft and in versions: the file's block plus a stable id. */
export type StoredBlock = Block & { id: string };
export type StoredStep =
  | { block: StoredBlock }
  | { parallel: StoredBlock[]; run_if?: string }
  | { loop: { over: string; block: StoredBlock } };

export const storedBlockSchema = blockSchema.extend({ id: z.string() });
export const storedStepSchema = z.union([
  z.object({ block: storedBlockSchema }),
  z.object({ parallel: z.array(storedBlockSchema), run_if: z.string().optional() }),
  z.object({ loop: z.object({ over: z.string(), block: storedBlockSchema }) }),
]);

export type StepKind = 'block' | 'parallel' | 'loop';

export const stepKind = (step: Step | StoredStep): StepKind =>
  'parallel' in step && step.parallel ? 'parallel' : 'loop' in step && step.loop ? 'loop' : 'block';

/** Where a block sits in a flow file, as problems name it: `steps[1].parallel[0]`, `steps[2].loop.block`, `steps[0].block`. */
export function blockPath(kind: StepKind, stepIndex: number, blockIndex: number): string {
  return formatPath(['steps', stepIndex, ...(kind === 'parallel' ? ['parallel', blockIndex] : kind === 'loop' ? ['loop', 'block'] : ['block'])]);
}

export function blocksOfStep<B extends Block>(step: { block?: B; parallel?: B[]; loop?: { block: B } }): B[] {
  if (step.parallel) return step.parallel;
  if (step.loop) return [step.loop.block];
  return step.block ? [step.block] : [];
}

/** How many blocks a flow's steps hold (a parallel step holds several, a loop one). */
export const countBlocks = (steps: (Step | StoredStep)[]) => steps.reduce((n, step) => n + blocksOfStep(step).length, 0);

/** Steps in file shape (no ids, no absent keys) for export. */
export function toFileSteps(steps: StoredStep[]): Step[] {
  const strip = ({ id: _id, ...block }: StoredBlock): Block => block;
  return steps.map((step) => {
    if ('parallel' in step) return { parallel: step.parallel.map(strip), ...(step.run_if === undefined ? {} : { run_if: step.run_if }) };
    if ('loop' in step) return { loop: { over: step.loop.over, block: strip(step.loop.block) } };
    return { block: strip(step.block) };
  });
}

/**
 * Gives every block of a new draft an id: a block keeps the id of the same-named block in the
 * previous draft, so ids stay stable across re-imports; others get `newId()`.
 */
export function assignBlockIds(steps: Step[], previous: StoredStep[], newId: () => string): StoredStep[] {
  const known = new Map(previous.flatMap((s) => blocksOfStep(s)).map((b) => [b.name, b.id]));
  const withId = (block: Block): StoredBlock => ({ ...block, id: known.get(block.name) ?? newId() });
  return steps.map((step) => {
    if (step.parallel) return { parallel: step.parallel.map(withId), ...(step.run_if === undefined ? {} : { run_if: step.run_if }) };
    if (step.loop) return { loop: { over: step.loop.over, block: withId(step.loop.block) } };
    return { block: withId(step.block!) };
  });
}
