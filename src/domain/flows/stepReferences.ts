import type { BlockReferences } from '../blocks/blockKind.ts';
import { blockKinds } from '../blocks/blockKinds.ts';
import { stepsNamedIn } from '../templating/template.ts';
import { formatPath } from '../validation/issuePath.ts';
import { parseRunCondition } from './runCondition.ts';
import { type Block, type StoredStep, blockPathIn, blocksOfStep } from './flowDefinition.ts';

/**
 * Which earlier blocks a block's content reads by name (its `run_if` is checked beside it, not
 * handed to it): its prompts' `{{steps.<name>.output...}}` placeholders, and what its kind reads
 * besides (a code block's `input.steps.<name>`: src/domain/blocks/code/codeReferences.ts). `all`:
 * it may read any of them (it then gets every completed block's output, and publishing checks only
 * the names it can see).
 */
export type { BlockReferences };

export function blockReferences(block: Block): BlockReferences {
  const prompts = [block.prompt ?? '', block.processor_config?.system_prompt ?? ''];
  const names = prompts.flatMap(stepsNamedIn);
  const own = blockKinds[block.processor_type].references(block);
  return { names: [...new Set([...names, ...own.names])], all: own.all };
}

/** The blocks a condition reads (none when it does not parse: publishing reports that instead). */
export function conditionReferences(condition: string | undefined): string[] {
  if (condition === undefined) return [];
  const parsed = parseRunCondition(condition);
  return parsed.ok ? parsed.paths.flatMap((path) => (path.block === null ? [] : [path.block])) : [];
}

/**
 * References to blocks that cannot have completed before the block runs: a block of the same or a
 * later step (a parallel sibling, the block itself), or no block at all. Each problem names the
 * block and the reference, as publishing reports it (FLOW_INVALID).
 */
export function stepReferenceProblems(steps: readonly StoredStep[]): string[] {
  const stepOf = new Map<string, number>();
  steps.forEach((step, index) => blocksOfStep(step).forEach((block) => stepOf.set(block.name, index)));
  const problems: string[] = [];
  const unreadable = (name: string, stepIndex: number, self: string | null): string | null => {
    const where = stepOf.get(name);
    if (where === undefined) return 'no block has that name';
    if (name === self) return 'that is this block itself';
    if (where === stepIndex && 'loop' in steps[stepIndex]! && self === null) return "that is the loop's own block: its last iteration is previous_output";
    if (where === stepIndex && 'switch' in steps[stepIndex]!) return self === null ? 'that block is a branch of this switch' : 'that block is another branch of the same switch (at most one branch runs)';
    if (where === stepIndex) return self === null ? 'that block is in this parallel step' : 'that block runs beside it, in the same parallel step';
    return where > stepIndex ? `that block runs later (steps[${where}])` : null;
  };
  steps.forEach((step, stepIndex) => {
    if ('parallel' in step && step.run_if !== undefined) {
      for (const name of conditionReferences(step.run_if)) {
        const why = unreadable(name, stepIndex, null);
        if (why) problems.push(`${formatPath(['steps', stepIndex, 'run_if'])}: the reference steps.${name} cannot be read: ${why}; a condition reads only blocks of earlier steps`);
      }
    }
    const stepConditions = [
      ...('loop' in step && 'while' in step.loop ? [{ at: formatPath(['steps', stepIndex, 'loop', 'while']), condition: step.loop.while }] : []),
      ...('switch' in step ? step.switch.cases.map((c, i) => ({ at: formatPath(['steps', stepIndex, 'switch', 'cases', i, 'when']), condition: c.when })) : []),
    ];
    for (const { at, condition } of stepConditions) {
      for (const name of conditionReferences(condition)) {
        const why = unreadable(name, stepIndex, null);
        if (why) problems.push(`${at}: the reference steps.${name} cannot be read: ${why}; a condition reads only blocks of earlier steps`);
      }
    }
    blocksOfStep(step).forEach((block, blockIndex) => {
      const at = blockPathIn(step, stepIndex, blockIndex);
      for (const name of new Set([...blockReferences(block).names, ...conditionReferences(block.run_if)])) {
        const why = unreadable(name, stepIndex, block.name);
        if (why) problems.push(`${at} (block '${block.name}'): the reference steps.${name} cannot be read: ${why}; a block reads only blocks of earlier steps`);
      }
    });
  });
  return problems;
}
