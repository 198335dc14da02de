import type { BlockStep } from './blockRunner.ts';
import { runLocalStep } from './localStep.ts';

/** How a `passthrough` block runs (its rules: src/domain/blocks/passthrough/): its input, the previous output or the message for a first block, unchanged. */
export const runPassthroughBlock = (step: BlockStep) => runLocalStep(step, step.context.previous_output ?? step.context.message ?? null, async (input) => input);
