import type { BlockReferences } from '../../domain/flows/stepReferences.ts';
import { setOwn } from '../../domain/ownProperty.ts';
import type { BlockStep } from './blockRunner.ts';
import { runLocalStep } from './localStep.ts';

/**
 * How a `code` block runs (its rules: src/domain/blocks/code/): in the sandbox, with `{message,
 * previous_output, parameters, steps}` as its input. `steps` holds the outputs of the earlier blocks
 * the code names (all of them when it reads `input.steps` in a way parsing cannot follow), so the
 * recorded input holds what the code could read, and no more.
 */
export function runCodeBlock(step: BlockStep) {
  const { session, block, context } = step;
  const { deps, run } = session;
  const input = { message: context.message ?? null, previous_output: context.previous_output ?? null, parameters: context.parameters, steps: stepsRead(deps.references(block), context.steps) };
  return runLocalStep(step, input, (read) => deps.sandbox.run(block.code ?? '', read, run.organizationId));
}

function stepsRead(references: BlockReferences, outputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (references.all) return { ...outputs };
  const read: Record<string, unknown> = {};
  for (const name of references.names) if (Object.hasOwn(outputs, name)) setOwn(read, name, outputs[name]);
  return read;
}
