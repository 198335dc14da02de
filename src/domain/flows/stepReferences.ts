import { parse } from 'acorn';
import { placeholderTarget, placeholdersOf } from '../templating/template.ts';
import { formatPath } from '../validation/issuePath.ts';
import { parseRunCondition } from './runCondition.ts';
import { type Block, type StoredStep, blockPath, blocksOfStep, stepKind } from './flowDefinition.ts';

/**
 * Which earlier blocks a block's content reads by name (its `run_if` is checked beside it, not handed to it): its prompts' `{{steps.<name>.output...}}`
 * placeholders, and its code's `input.steps.<name>` (or `input.steps['<name>']`). Code is parsed
 * (acorn; parsing runs nothing), never matched as text, so a comment or a string naming a block is
 * not a reference. Wherever the code could reach `input.steps` in a way parsing cannot follow (a
 * computed name, `input` passed on or destructured), it reads them all (`all`): it then gets every
 * completed block's output, and publishing checks only the names it can see.
 */
export interface BlockReferences {
  names: string[];
  all: boolean;
}

export function blockReferences(block: Block): BlockReferences {
  const prompts = [block.prompt ?? '', block.processor_config?.system_prompt ?? ''];
  const names = prompts.flatMap((prompt) => placeholdersOf(prompt).flatMap((expression) => {
    const target = placeholderTarget(expression);
    return target?.root === 'steps' ? [target.block] : [];
  }));
  const code = block.processor_type === 'code' && block.code ? codeReferences(block.code) : { names: [], all: false };
  return { names: [...new Set([...names, ...code.names])], all: code.all };
}

/** The blocks a condition reads (none when it does not parse: publishing reports that instead). */
export function conditionReferences(condition: string | undefined): string[] {
  if (condition === undefined) return [];
  const parsed = parseRunCondition(condition);
  return parsed.ok ? parsed.paths.flatMap((path) => (path.block === null ? [] : [path.block])) : [];
}

type Node = { type: string; [key: string]: unknown };

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
/** A member's name when it is written out: `a.name` or `a['name']`. */
const staticName = (member: Node): string | null => {
  const property = member.property as Node;
  if (!member.computed && property.type === 'Identifier') return property.name as string;
  return member.computed && property.type === 'Literal' && typeof property.value === 'string' ? property.value : null;
};
const isInput = (node: unknown) => isNode(node) && node.type === 'Identifier' && node.name === 'input';

/** The names a code block reads as `input.steps.<name>`; `all` when it uses `input` in any other way than naming a field. */
export function codeReferences(code: string): BlockReferences {
  let program: Node;
  try {
    program = parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true }) as unknown as Node;
  } catch {
    // Code that does not parse never runs (publishing refuses it); a draft's warnings say why.
    return { names: [], all: true };
  }
  const names = new Set<string>();
  let all = false;
  const visit = (node: Node, parent: Node | null) => {
    if (isInput(node) && !(parent?.type === 'MemberExpression' && parent.object === node)) {
      // `input` itself read, passed or destructured (a declaration's own name is not a read).
      if (!(parent?.type === 'VariableDeclarator' && parent.id === node) && !(parent?.type === 'Property' && parent.key === node && !parent.computed && !parent.shorthand)) all = true;
    }
    if (node.type === 'MemberExpression' && isInput(node.object)) {
      const field = staticName(node);
      if (field === null) all = true;
      else if (field === 'steps') {
        const step = parent?.type === 'MemberExpression' && parent.object === node ? staticName(parent) : null;
        if (step === null) all = true;
        else names.add(step);
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || key === 'range') continue;
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child, node);
    }
  };
  visit(program, null);
  return { names: [...names], all };
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
    if (where === stepIndex) return self === null ? 'that block is in this parallel step' : 'that block runs beside it, in the same parallel step';
    return where > stepIndex ? `that block runs later (steps[${where}])` : null;
  };
  steps.forEach((step, stepIndex) => {
    const kind = stepKind(step);
    if ('parallel' in step && step.run_if !== undefined) {
      for (const name of conditionReferences(step.run_if)) {
        const why = unreadable(name, stepIndex, null);
        if (why) problems.push(`${formatPath(['steps', stepIndex, 'run_if'])}: the reference steps.${name} cannot be read: ${why}; a condition reads only blocks of earlier steps`);
      }
    }
    blocksOfStep(step).forEach((block, blockIndex) => {
      const at = blockPath(kind, stepIndex, blockIndex);
      for (const name of new Set([...blockReferences(block).names, ...conditionReferences(block.run_if)])) {
        const why = unreadable(name, stepIndex, block.name);
        if (why) problems.push(`${at} (block '${block.name}'): the reference steps.${name} cannot be read: ${why}; a block reads only blocks of earlier steps`);
      }
    });
  });
  return problems;
}
