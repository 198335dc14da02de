import { parse } from 'acorn';
import type { BlockReferences } from '../blockKind.ts';

/**
 * The earlier blocks a code block reads: `input.steps.<name>` (or `input.steps['<name>']`). Code is
 * parsed (acorn; parsing runs nothing), never matched as text, so a comment or a string naming a
 * block is not a reference. Wherever the code could reach `input.steps` in a way parsing cannot
 * follow (a computed name, `input` passed on or destructured), it reads them all (`all`).
 */

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
