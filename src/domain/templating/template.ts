/**
 * Prompt templating: the spec's `{{message}}`, `{{previous_output}}`, `{{previous_output.a.b}}` and
 * `{{parameters.name}}`, and the run's context by name: `{{input.message}}`,
 * `{{input.parameters.a.b}}` and `{{steps.<block>.output[.a.b]}}`, the output of any block that
 * completed before this one (stepReferences.ts checks at publish that it can have). Values are
 * looked up, never evaluated. A placeholder whose value is absent (or whose root is unknown) renders
 * as an empty string and is reported in `missing`, so the step event shows what the prompt lacked.
 * Objects and arrays render as JSON.
 */
export interface TemplateContext {
  message: string | undefined;
  previous_output: unknown;
  parameters: Record<string, unknown>;
  /** Outputs of the blocks completed so far, by block name (a loop's: its results in order). */
  steps: Readonly<Record<string, unknown>>;
  /** A server tool's call: the arguments the model gave (`{{arguments.x}}`), only in that tool's request. */
  arguments?: Readonly<Record<string, unknown>>;
}

export interface RenderedTemplate {
  text: string;
  missing: string[];
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

export function lookupPath(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * What a placeholder reads, by its shape alone: a root of the context and the path below it
 * (`steps`: the block's name and the path in its output). Null when it can never render.
 */
export type PlaceholderTarget =
  | { root: 'message' }
  | { root: 'previous_output' | 'parameters'; path: string[] }
  | { root: 'steps'; block: string; path: string[] }
  /** An organization's secret (`{{secrets.<name>}}`): rendered only where a request's URL or headers give `secret` to renderTemplate. */
  | { root: 'secrets'; name: string }
  /** A server tool's arguments (`{{arguments.<path>}}`): only in that tool's request. */
  | { root: 'arguments'; path: string[] };

export function placeholderTarget(expression: string): PlaceholderTarget | null {
  if (!PATH.test(expression)) return null;
  const [root, ...path] = expression.split('.');
  switch (root) {
    case 'message':
      return path.length === 0 ? { root } : null;
    case 'previous_output':
      return { root, path };
    case 'parameters':
      return path.length > 0 ? { root, path } : null;
    case 'input':
      if (path[0] === 'message' && path.length === 1) return { root: 'message' };
      return path[0] === 'parameters' && path.length > 1 ? { root: 'parameters', path: path.slice(1) } : null;
    case 'steps':
      return path.length >= 2 && path[1] === 'output' ? { root, block: path[0]!, path: path.slice(2) } : null;
    case 'secrets':
      return path.length === 1 ? { root, name: path[0]! } : null;
    case 'arguments':
      return { root, path };
    default:
      return null;
  }
}

function resolve(expression: string, context: TemplateContext, secret?: (name: string) => string | undefined): unknown {
  const target = placeholderTarget(expression);
  if (target === null) return undefined;
  switch (target.root) {
    case 'message':
      return context.message;
    case 'previous_output':
      return lookupPath(context.previous_output, target.path);
    case 'parameters':
      return lookupPath(context.parameters, target.path);
    case 'steps':
      return Object.prototype.hasOwnProperty.call(context.steps, target.block) ? lookupPath(context.steps[target.block], target.path) : undefined;
    case 'secrets':
      return secret?.(target.name);
    case 'arguments':
      return context.arguments === undefined ? undefined : lookupPath(context.arguments, target.path);
  }
}

/** The value a placeholder names in a prompt's context (never a secret), or undefined when absent. */
export const valueOfPlaceholder = (expression: string, context: TemplateContext): unknown => resolve(expression, context);

/** Whether a placeholder can ever render a value in a prompt, whatever the run: the roots and shapes `resolve` knows (a secret or a tool's arguments never render there). */
export const placeholderCanRender = (expression: string): boolean => {
  const target = placeholderTarget(expression);
  return target !== null && target.root !== 'secrets' && target.root !== 'arguments';
};

/** The placeholders of a template, as written between the braces (trimmed). */
export const placeholdersOf = (template: string): string[] => [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);

/** The blocks a template reads by name: its `{{steps.<name>.output...}}` placeholders. */
export const stepsNamedIn = (template: string): string[] =>
  placeholdersOf(template).flatMap((expression) => {
    const target = placeholderTarget(expression);
    return target?.root === 'steps' ? [target.block] : [];
  });

/** The organization's secrets a template names: its `{{secrets.<name>}}` placeholders. */
export const secretsNamedIn = (template: string): string[] =>
  placeholdersOf(template).flatMap((expression) => {
    const target = placeholderTarget(expression);
    return target?.root === 'secrets' ? [target.name] : [];
  });

const renderValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Renders a template; `encode` is applied to each value put in (a URL's percent-encoding), never to
 * the template's own text. `secret` gives the organization's secrets by name, only where they may
 * go (a request's URL and headers); without it `{{secrets.<name>}}` renders empty like any unknown.
 */
export function renderTemplate(template: string, context: TemplateContext, encode: (value: string) => string = (value) => value, secret?: (name: string) => string | undefined): RenderedTemplate {
  const missing: string[] = [];
  const text = template.replace(PLACEHOLDER, (_match, expression: string) => {
    const value = resolve(expression, context, secret);
    if (value === undefined || value === null) {
      missing.push(expression);
      return '';
    }
    return encode(renderValue(value));
  });
  return { text, missing };
}
