import { z } from 'zod';
import { slugSchema } from '../slugs/slug.ts';
import { processorConfigShape, processorTypes } from '../blocks/blockKinds.ts';
import { RUN_CONDITION_MAX_LENGTH } from './runCondition.ts';
import { formatPath } from '../validation/issuePath.ts';

export { processorTypes };

/**
 * The flow file (import/export) and the draft share one shape: an ordered list of steps, each one
 * block, several blocks in parallel, a loop of one block (over an array, or while a condition
 * holds), or a switch (one block of several, by condition). Objects are strict, so an unknown field
 * is refused with its path.
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

/** The most iterations a `while` loop may be given: its `max_iterations` is required, and at most this. */
export const MAX_WHILE_ITERATIONS = 100;

export const loopSchema = z
  .strictObject({
    over: z.string().regex(LOOP_OVER_PATTERN, 'must be a path such as previous_output.items or parameters.list').optional(),
    /** An addition to the spec: the block runs again while this condition (as `run_if`) holds, `previous_output` being the last iteration's output. */
    while: z.string().max(RUN_CONDITION_MAX_LENGTH).optional(),
    max_iterations: z.number().int().min(1).max(MAX_WHILE_ITERATIONS).optional(),
    block: blockSchema,
  })
  .superRefine((loop, ctx) => {
    if ((loop.over === undefined) === (loop.while === undefined)) ctx.addIssue({ code: 'custom', message: 'a loop has exactly one of over (an array) or while (a condition)' });
    if (loop.while !== undefined && loop.max_iterations === undefined) ctx.addIssue({ code: 'custom', path: ['max_iterations'], message: `a while loop needs max_iterations (1-${MAX_WHILE_ITERATIONS})` });
    if (loop.over !== undefined && loop.while === undefined && loop.max_iterations !== undefined) ctx.addIssue({ code: 'custom', path: ['max_iterations'], message: 'only a while loop has max_iterations (a loop over an array runs once per item)' });
  });

/** One case of a switch: its condition (as `run_if`) and the block that runs when it is the first to hold. */
export const switchCaseSchema = z.strictObject({ when: z.string().max(RUN_CONDITION_MAX_LENGTH), block: blockSchema });

/** An addition to the spec: the block of the first case whose condition holds runs, or the default's, or none; the others are recorded skipped. */
export const switchSchema = z.strictObject({
  cases: z.array(switchCaseSchema).min(1).max(20),
  default: blockSchema.optional(),
});

export const stepSchema = z
  .strictObject({
    block: blockSchema.optional(),
    parallel: z.array(blockSchema).min(1).optional(),
    loop: loopSchema.optional(),
    switch: switchSchema.optional(),
    /** A parallel step's condition: when false, none of its blocks runs. A single block carries its own. */
    run_if: z.string().max(RUN_CONDITION_MAX_LENGTH).optional(),
  })
  .superRefine((step, ctx) => {
    const kinds = (['block', 'parallel', 'loop', 'switch'] as const).filter((kind) => step[kind] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({ code: 'custom', message: 'a step has exactly one of block, parallel, loop or switch' });
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
/** A loop as stored: over an array, or while a condition holds (at most `max_iterations` times). */
export type StoredLoop = { over: string; block: StoredBlock } | { while: string; max_iterations: number; block: StoredBlock };
export interface StoredSwitch {
  cases: { when: string; block: StoredBlock }[];
  default?: StoredBlock;
}
export type StoredStep = { block: StoredBlock } | { parallel: StoredBlock[]; run_if?: string } | { loop: StoredLoop } | { switch: StoredSwitch };

export const storedBlockSchema = blockSchema.extend({ id: z.string() });
export const storedStepSchema = z.union([
  z.object({ block: storedBlockSchema }),
  z.object({ parallel: z.array(storedBlockSchema), run_if: z.string().optional() }),
  z.object({ loop: z.union([z.object({ over: z.string(), block: storedBlockSchema }), z.object({ while: z.string(), max_iterations: z.number().int(), block: storedBlockSchema })]) }),
  z.object({ switch: z.object({ cases: z.array(z.object({ when: z.string(), block: storedBlockSchema })), default: storedBlockSchema.optional() }) }),
]);

export const stepKinds = ['block', 'parallel', 'loop', 'switch'] as const;
export type StepKind = (typeof stepKinds)[number];

export const stepKind = (step: Step | StoredStep): StepKind =>
  'parallel' in step && step.parallel ? 'parallel' : 'loop' in step && step.loop ? 'loop' : 'switch' in step && step.switch ? 'switch' : 'block';

/**
 * Where a block sits in a flow file, as problems name it: `steps[1].parallel[0]`, `steps[2].loop.block`,
 * `steps[3].switch.cases[1].block` (the default: `steps[3].switch.default`), `steps[0].block`.
 */
export function blockPath(kind: StepKind, stepIndex: number, blockIndex: number, caseCount = 0): string {
  if (kind === 'switch') return formatPath(['steps', stepIndex, 'switch', ...(blockIndex < caseCount ? ['cases', blockIndex, 'block'] : ['default'])]);
  return formatPath(['steps', stepIndex, ...(kind === 'parallel' ? ['parallel', blockIndex] : kind === 'loop' ? ['loop', 'block'] : ['block'])]);
}

/** A step's blocks in order: a switch's cases' blocks, then its default's. */
export function blocksOfStep<B extends Block>(step: { block?: B; parallel?: B[]; loop?: { block: B }; switch?: { cases: { block: B }[]; default?: B } }): B[] {
  if (step.parallel) return step.parallel;
  if (step.loop) return [step.loop.block];
  if (step.switch) return [...step.switch.cases.map((c) => c.block), ...(step.switch.default ? [step.switch.default] : [])];
  return step.block ? [step.block] : [];
}

/** Where the block at `blockIndex` of a step sits, as problems name it (blockPath for the step's kind). */
export const blockPathIn = (step: Step | StoredStep, stepIndex: number, blockIndex: number): string =>
  blockPath(stepKind(step), stepIndex, blockIndex, 'switch' in step && step.switch ? step.switch.cases.length : 0);

/** The array path a loop goes over, or null (a while loop, or no loop). */
export const loopOverOf = (step: StoredStep): string | null => ('loop' in step && 'over' in step.loop ? step.loop.over : null);

/** A loop's own part, without its block: `over`, or `while` and `max_iterations`. */
export const loopHead = (loop: { over?: string; while?: string; max_iterations?: number }) =>
  loop.while !== undefined ? { while: loop.while, max_iterations: loop.max_iterations! } : { over: loop.over! };

/** How many blocks a flow's steps hold (a parallel step holds several, a loop one). */
export const countBlocks = (steps: (Step | StoredStep)[]) => steps.reduce((n, step) => n + blocksOfStep(step).length, 0);

/** Steps in file shape (no ids, no absent keys) for export. */
export function toFileSteps(steps: StoredStep[]): Step[] {
  const strip = ({ id: _id, ...block }: StoredBlock): Block => block;
  return steps.map((step) => {
    if ('parallel' in step) return { parallel: step.parallel.map(strip), ...(step.run_if === undefined ? {} : { run_if: step.run_if }) };
    if ('loop' in step) return { loop: { ...loopHead(step.loop), block: strip(step.loop.block) } };
    if ('switch' in step) return { switch: { cases: step.switch.cases.map((c) => ({ when: c.when, block: strip(c.block) })), ...(step.switch.default ? { default: strip(step.switch.default) } : {}) } };
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
    if (step.loop) return { loop: { ...loopHead(step.loop), block: withId(step.loop.block) } } as StoredStep;
    if (step.switch) return { switch: { cases: step.switch.cases.map((c) => ({ when: c.when, block: withId(c.block) })), ...(step.switch.default ? { default: withId(step.switch.default) } : {}) } };
    return { block: withId(step.block!) };
  });
}
