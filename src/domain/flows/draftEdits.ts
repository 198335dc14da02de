import { Ajv } from 'ajv';
import { ApiError } from '../errors/apiError.ts';
import { isPlainObject } from '../validation/plainObject.ts';
import { type ProcessorType, blockKinds, kindsTaking, processorTypes } from '../blocks/blockKinds.ts';
import { BLOCK_NAME_PATTERN, LOOP_OVER_PATTERN, type StoredBlock, type StoredStep, blocksOfStep, processorConfigSchema } from './flowDefinition.ts';

/**
 * Block-by-block edits of a flow's draft, pure: each takes the draft's steps and returns the new
 * steps, or throws a coded error. The editing model:
 * - a step holds one block, several blocks in parallel, or a loop over one block;
 * - `right` of a target puts the new block in a new step after the target's step; `bottom` makes it
 *   a parallel sibling of the target (a one-block step becomes a parallel step);
 * - removing a block removes its step when the step empties; a parallel step left with one block
 *   becomes a plain step;
 * - a plain step's block can be wrapped in a loop (`over` a path) and unwrapped again;
 * - a switch (and a while loop) is written in the flow file; its blocks are edited in place here,
 *   and removing one removes its case (the step goes with its last block).
 */
export type Direction = 'right' | 'bottom';

export interface BlockContent {
  name: string;
  processor_type: ProcessorType;
  prompt?: string;
  code?: string;
  model?: string;
  /** Set as update_block and update_block_output_schema would set them, in the same edit. */
  processor_config?: StoredBlock['processor_config'];
  output_schema?: Record<string, unknown>;
}

export interface BlockChanges {
  name?: string;
  model?: string | null;
  prompt?: string;
  code?: string;
  processor_config?: StoredBlock['processor_config'];
}

interface Location {
  stepIndex: number;
  indexInStep: number;
  block: StoredBlock;
}

export function locateBlock(steps: StoredStep[], blockId: string): Location {
  for (const [stepIndex, step] of steps.entries()) {
    const indexInStep = blocksOfStep(step).findIndex((b) => b.id === blockId);
    if (indexInStep >= 0) return { stepIndex, indexInStep, block: blocksOfStep(step)[indexInStep]! };
  }
  throw new ApiError('BLOCK_NOT_FOUND', `No block ${blockId} in this flow's draft`);
}

function assertNameFree(steps: StoredStep[], name: string, exceptId?: string) {
  if (!BLOCK_NAME_PATTERN.test(name)) throw new ApiError('BLOCK_INVALID', `name: '${name}' must match ${BLOCK_NAME_PATTERN.source}`);
  const taken = steps.flatMap((s) => blocksOfStep(s)).find((b) => b.name === name && b.id !== exceptId);
  if (taken) throw new ApiError('BLOCK_NAME_TAKEN', `A block named '${name}' already exists in this flow (${taken.id})`);
}

/** How a refusal says what a field is, and whether it names the block's own kind. */
const CONTENT_FIELDS = [
  { field: 'prompt', has: 'have a prompt', namesBlock: true },
  { field: 'code', has: 'have code', namesBlock: true },
  { field: 'output_schema', has: 'have an output schema', namesBlock: false },
] as const;

/** Content fields only where they mean something: each only on the kinds that take it (a prompt for llm blocks, code for code blocks). */
function assertContentFits(block: StoredBlock) {
  for (const { field, has, namesBlock } of CONTENT_FIELDS) {
    if (block[field] === undefined || blockKinds[block.processor_type].fields.includes(field)) continue;
    throw new ApiError('BLOCK_INVALID', `${field}: only ${kindsTaking(field).join(' and ')} blocks ${has}${namesBlock ? ` ('${block.name}' is ${block.processor_type})` : ''}`);
  }
}

const replaceBlock = (step: StoredStep, indexInStep: number, block: StoredBlock): StoredStep => {
  if ('parallel' in step) return { parallel: step.parallel.map((b, i) => (i === indexInStep ? block : b)) };
  if ('loop' in step) return { loop: { ...step.loop, block } };
  if ('switch' in step) {
    const { cases, default: otherwise } = step.switch;
    if (indexInStep < cases.length) return { switch: { cases: cases.map((c, i) => (i === indexInStep ? { ...c, block } : c)), ...(otherwise ? { default: otherwise } : {}) } };
    return { switch: { cases, default: block } };
  }
  return { block };
};

export function addBlock(steps: StoredStep[], content: BlockContent & { id: string }, placement: { targetId?: string; direction?: Direction }): StoredStep[] {
  const { processor_config, output_schema, ...bare } = content;
  let added = addBareBlock(steps, bare, placement);
  // Checked as their own edits check them: one edit, the block whole.
  if (processor_config !== undefined) added = updateBlock(added, content.id, { processor_config });
  if (output_schema !== undefined) added = setOutputSchema(added, content.id, output_schema);
  return added;
}

function addBareBlock(steps: StoredStep[], content: Omit<BlockContent, 'processor_config' | 'output_schema'> & { id: string }, placement: { targetId?: string; direction?: Direction }): StoredStep[] {
  if (!(processorTypes as readonly string[]).includes(content.processor_type)) throw new ApiError('BLOCK_INVALID', `processor_type: one of ${processorTypes.join(', ')}`);
  // An empty prompt or code on a block that has none means none: the spec's add_block passes a prompt for every block.
  const takes = blockKinds[content.processor_type].fields;
  const prompt = content.prompt === '' && !takes.includes('prompt') ? undefined : content.prompt;
  const code = content.code === '' && !takes.includes('code') ? undefined : content.code;
  const block: StoredBlock = { id: content.id, name: content.name, processor_type: content.processor_type, ...(prompt !== undefined ? { prompt } : {}), ...(code !== undefined ? { code } : {}), ...(content.model !== undefined ? { model: content.model } : {}) };
  assertNameFree(steps, block.name);
  assertContentFits(block);
  if (placement.targetId === undefined) {
    if (steps.length > 0) throw new ApiError('PLACEMENT_INVALID', 'target_id: required once the flow has blocks (with direction right or bottom)');
    return [{ block }];
  }
  const direction = placement.direction ?? 'right';
  if (direction !== 'right' && direction !== 'bottom') throw new ApiError('PLACEMENT_INVALID', "direction: 'right' (a new step after the target's) or 'bottom' (a parallel sibling of the target)");
  const target = locateBlock(steps, placement.targetId);
  if (direction === 'right') return [...steps.slice(0, target.stepIndex + 1), { block }, ...steps.slice(target.stepIndex + 1)];
  const step = steps[target.stepIndex]!;
  if ('loop' in step) throw new ApiError('PLACEMENT_INVALID', 'a loop runs one block: unwrap it before adding a parallel sibling');
  if ('switch' in step) throw new ApiError('PLACEMENT_INVALID', "a switch's cases are written in the flow file (import it): a block beside a case would run with every case");
  const siblings = 'parallel' in step ? step.parallel : [step.block];
  return steps.map((s, i) => (i === target.stepIndex ? { parallel: [...siblings.slice(0, target.indexInStep + 1), block, ...siblings.slice(target.indexInStep + 1)] } : s));
}

export function updateBlock(steps: StoredStep[], blockId: string, changes: BlockChanges): StoredStep[] {
  const { stepIndex, indexInStep, block } = locateBlock(steps, blockId);
  const known = ['name', 'model', 'prompt', 'code', 'processor_config'];
  const unknown = Object.keys(changes).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new ApiError('BLOCK_INVALID', `${unknown[0]}: not a field an update can change (${known.join(', ')})`);
  if (changes.name !== undefined) assertNameFree(steps, changes.name, blockId);
  if (changes.processor_config !== undefined) {
    const parsed = processorConfigSchema.safeParse(changes.processor_config);
    if (!parsed.success) throw new ApiError('BLOCK_INVALID', `processor_config: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(object)'} ${i.message}`).join('; ')}`);
  }
  const { model, ...rest } = changes;
  const updated: StoredBlock = { ...block, ...rest };
  if (model === null) delete updated.model;
  else if (model !== undefined) updated.model = model;
  assertContentFits(updated);
  return steps.map((s, i) => (i === stepIndex ? replaceBlock(s, indexInStep, updated) : s));
}

/** Sets (or, with null, clears) an llm block's output schema; a schema that does not compile names the JSON pointer. */
export function setOutputSchema(steps: StoredStep[], blockId: string, schema: Record<string, unknown> | null): StoredStep[] {
  const { stepIndex, indexInStep, block } = locateBlock(steps, blockId);
  const updated: StoredBlock = { ...block };
  if (schema === null) delete updated.output_schema;
  else {
    if (!isPlainObject(schema) || schema.type !== 'object') throw new ApiError('OUTPUT_SCHEMA_INVALID', 'the output schema must be a JSON Schema object with "type": "object"');
    const ajv = new Ajv({ strict: false, allErrors: true });
    if (!ajv.validateSchema(schema)) {
      const first = ajv.errors?.[0];
      throw new ApiError('OUTPUT_SCHEMA_INVALID', `the output schema is not valid JSON Schema at ${first?.instancePath || '/'}: ${first?.message ?? 'invalid'}`, { pointer: first?.instancePath || '/' });
    }
    try {
      ajv.compile(schema);
    } catch (error) {
      throw new ApiError('OUTPUT_SCHEMA_INVALID', `the output schema does not compile: ${(error as Error).message}`, { pointer: '/' });
    }
    updated.output_schema = schema;
  }
  assertContentFits(updated);
  return steps.map((s, i) => (i === stepIndex ? replaceBlock(s, indexInStep, updated) : s));
}

export function removeBlock(steps: StoredStep[], blockId: string): StoredStep[] {
  const { stepIndex } = locateBlock(steps, blockId);
  const step = steps[stepIndex]!;
  if ('switch' in step) {
    const cases = step.switch.cases.filter((c) => c.block.id !== blockId);
    const otherwise = step.switch.default?.id === blockId ? undefined : step.switch.default;
    if (cases.length === 0) return otherwise ? steps.map((s, i) => (i === stepIndex ? { block: otherwise } : s)) : steps.filter((_s, i) => i !== stepIndex);
    return steps.map((s, i) => (i === stepIndex ? { switch: { cases, ...(otherwise ? { default: otherwise } : {}) } } : s));
  }
  if (!('parallel' in step)) return steps.filter((_s, i) => i !== stepIndex);
  const left = step.parallel.filter((b) => b.id !== blockId);
  return steps.map((s, i) => (i === stepIndex ? (left.length === 1 ? { block: left[0]! } : { parallel: left }) : s));
}

/** Wraps a plain step's block in a loop over `over`, or (with null) unwraps a loop back to a plain step. */
export function setLoop(steps: StoredStep[], blockId: string, over: string | null): StoredStep[] {
  const { stepIndex, block } = locateBlock(steps, blockId);
  const step = steps[stepIndex]!;
  if (over === null) {
    if (!('loop' in step)) throw new ApiError('PLACEMENT_INVALID', `block '${block.name}' is not in a loop`);
    return steps.map((s, i) => (i === stepIndex ? { block } : s));
  }
  if (!LOOP_OVER_PATTERN.test(over)) throw new ApiError('PLACEMENT_INVALID', 'over: a path such as previous_output.items or parameters.list');
  if ('parallel' in step) throw new ApiError('PLACEMENT_INVALID', 'a block in a parallel step cannot loop: move it to a step of its own first');
  if ('switch' in step) throw new ApiError('PLACEMENT_INVALID', "a switch's block cannot loop: make the loop a flow of its own and run it with a flow block");
  if (block.processor_config?.tools_enabled) throw new ApiError('PLACEMENT_INVALID', 'a tools-enabled block cannot run in a loop');
  return steps.map((s, i) => (i === stepIndex ? { loop: { over, block } } : s));
}
