/**
 * Prompt templating: `{{message}}`, `{{previous_output}}`, `{{previous_output.a.b}}`,
 * `{{parameters.name}}`. Values are looked up, never evaluated. A placeholder whose value is absent
 * (or whose root is unknown) renders as an empty string and is reported in `missing`, so the step
 * event shows what the prompt lacked. Objects and arrays render as JSON.
 */
export interface TemplateContext {
  message: string | undefined;
  previous_output: unknown;
  parameters: Record<string, unknown>;
}

export interface RenderedTemplate {
  text: string;
  missing: string[];
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

export function lookupPath(root: unknown, path: string[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function resolve(expression: string, context: TemplateContext): unknown {
  if (!PATH.test(expression)) return undefined;
  const [root, ...path] = expression.split('.');
  switch (root) {
    case 'message':
      return path.length === 0 ? context.message : undefined;
    case 'previous_output':
      return lookupPath(context.previous_output, path);
    case 'parameters':
      return path.length === 0 ? undefined : lookupPath(context.parameters, path);
    default:
      return undefined;
  }
}

/** Whether a placeholder can ever render a value, whatever the run: the roots and shapes `resolve` knows. */
export function placeholderCanRender(expression: string): boolean {
  if (!PATH.test(expression)) return false;
  const [root, ...path] = expression.split('.');
  if (root === 'message') return path.length === 0;
  if (root === 'parameters') return path.length > 0;
  return root === 'previous_output';
}

/** The placeholders of a template, as written between the braces (trimmed). */
export const placeholdersOf = (template: string): string[] => [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);

const renderValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function renderTemplate(template: string, context: TemplateContext): RenderedTemplate {
  const missing: string[] = [];
  const text = template.replace(PLACEHOLDER, (_match, expression: string) => {
    const value = resolve(expression, context);
    if (value === undefined || value === null) {
      missing.push(expression);
      return '';
    }
    return renderValue(value);
  });
  return { text, missing };
}
