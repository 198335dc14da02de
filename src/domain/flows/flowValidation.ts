import { Ajv } from 'ajv';
import { blockKinds, processorTypes } from '../blocks/blockKinds.ts';
import type { PublishContext } from '../blocks/blockKind.ts';
import { type StoredBlock, type StoredStep, blockPathIn, blocksOfStep, stepKind } from './flowDefinition.ts';
import { stepReferenceProblems } from './stepReferences.ts';
import { parseRunCondition } from './runCondition.ts';
import { formatPath } from '../validation/issuePath.ts';

export type { PublishContext };

/**
 * What publishing checks beyond the file's shape. Returns every problem with its path; an empty
 * list means the draft can become a version.
 */
export function validateFlowForPublish(steps: StoredStep[], context: PublishContext = {}): string[] {
  const problems: string[] = [];
  if (steps.length === 0) problems.push('steps: a flow needs at least one step');

  const seen = new Map<string, string>();
  steps.forEach((step, stepIndex) => {
    const kind = stepKind(step);
    blocksOfStep(step).forEach((block, blockIndex) => {
      const at = blockPathIn(step, stepIndex, blockIndex);
      // The block by its name too: `steps[1].parallel[0]` alone leaves the reader counting.
      const path = `${at} (block '${block.name}')`;
      const earlier = seen.get(block.name);
      if (earlier) problems.push(`${path}.name: block name '${block.name}' is already used at ${earlier}`);
      else seen.set(block.name, at);
      problems.push(...validateBlock(block, path, context));
      if (kind === 'switch' && block.run_if !== undefined) problems.push(`${path}.run_if: a switch's block runs when its case is chosen: its condition is the case's when`);
      if ((kind === 'parallel' || kind === 'loop') && blockKinds[block.processor_type].standsAlone) problems.push(`${path}: ${block.processor_type} blocks stop the run for someone outside it: they must be steps of their own, not in a ${kind === 'parallel' ? 'parallel step' : 'loop'}`);
    });
  });
  problems.push(...runConditionProblems(steps), ...stepReferenceProblems(steps), ...(context.subflowProblems ?? []));
  return problems;
}

/**
 * A block's problems: its kind's own fields, what of another kind's it carries (an llm setting on a
 * code block), its output schema, then what depends on the service publishing it.
 */
function validateBlock(block: StoredBlock, path: string, context: PublishContext): string[] {
  const kind = blockKinds[block.processor_type];
  return [
    ...kind.fieldProblems(block, path),
    ...processorTypes.filter((other) => other !== block.processor_type).flatMap((other) => blockKinds[other].foreignUse(block, path)),
    ...(block.output_schema === undefined ? [] : validateOutputSchema(block.output_schema, `${path}.output_schema`)),
    ...kind.contextProblems(block, path, context),
  ];
}

function validateOutputSchema(schema: Record<string, unknown>, path: string): string[] {
  if (schema.type !== 'object') return [`${path}: must be a JSON Schema with "type": "object"`];
  // A fresh instance per check: Ajv caches by $id, and one flow's schemas must not clash with another's.
  const ajv = new Ajv({ strict: false, allErrors: true });
  if (!ajv.validateSchema(schema)) {
    return [`${path}: not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'schema' })}`];
  }
  try {
    ajv.compile(schema);
    return [];
  } catch (error) {
    return [`${path}: not a valid JSON Schema: ${(error as Error).message}`];
  }
}

/** Conditions that do not parse, or use more of JSONata than a condition may (runCondition.ts). */
function runConditionProblems(steps: readonly StoredStep[]): string[] {
  return steps.flatMap((step, stepIndex) => {
    const conditions = [
      ...('parallel' in step ? [{ at: formatPath(['steps', stepIndex, 'run_if']), condition: step.run_if }] : []),
      ...('loop' in step && 'while' in step.loop ? [{ at: formatPath(['steps', stepIndex, 'loop', 'while']), condition: step.loop.while }] : []),
      ...('switch' in step ? step.switch.cases.map((c, i) => ({ at: formatPath(['steps', stepIndex, 'switch', 'cases', i, 'when']), condition: c.when })) : []),
      ...blocksOfStep(step).map((block, blockIndex) => ({ at: `${blockPathIn(step, stepIndex, blockIndex)} (block '${block.name}').run_if`, condition: block.run_if })),
    ];
    return conditions.flatMap(({ at, condition }) => {
      if (condition === undefined) return [];
      const parsed = parseRunCondition(condition);
      return parsed.ok ? [] : [`${at}: the condition ${parsed.problem}`];
    });
  });
}
