import { ApiError } from '../errors/apiError.ts';

/**
 * Which runs an erasure by content means: `input.message=<text>` or
 * `input.parameters.<key>[.<key>...]=<value>`, matched against what the run was asked with. A value
 * matches a string equal to it, or a number or boolean whose JSON text is it (`customer_id=42`
 * matches 42 and "42").
 */
export interface RunSelector {
  /** The path under the run's input: ['message'] or ['parameters', key, ...]. */
  path: string[];
  value: string;
  /** The selector as written, for messages and the erasure's reason. */
  text: string;
}

export function parseRunSelector(text: string): RunSelector {
  const at = text.indexOf('=');
  const path = (at > 0 ? text.slice(0, at) : '').split('.');
  const value = at > 0 ? text.slice(at + 1) : '';
  const valid = path[0] === 'input' && ((path.length === 2 && path[1] === 'message') || (path.length >= 3 && path[1] === 'parameters' && path.slice(2).every((p) => p.length > 0)));
  if (!valid || value.length === 0) {
    throw new ApiError('VALIDATION_FAILED', `--where must be input.message=<text> or input.parameters.<key>=<value> (got '${text}')`);
  }
  return { path: path.slice(1), value, text };
}

/** Whether a run asked with this input is one the selector means. */
export function selects(selector: RunSelector, input: { message: string | null; parameters: Record<string, unknown> }): boolean {
  let value: unknown = input;
  for (const key of selector.path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return false;
    value = (value as Record<string, unknown>)[key];
  }
  if (typeof value === 'string') return value === selector.value;
  return (typeof value === 'number' || typeof value === 'boolean') && JSON.stringify(value) === selector.value;
}
