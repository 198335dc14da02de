/**
 * What the log can store. PostgreSQL's jsonb refuses the NUL character (`\u0000`) and unpaired
 * UTF-16 surrogates in any string or key, deep nesting costs every reader stack, and a JSON number
 * beyond the range of a double (`1e400`) parses as Infinity, which no JSON text (nor the log's
 * canonical JSON) can hold; so caller input and block outputs are checked here, and refused with
 * the path of the first problem, before anything is written.
 */
import { ApiError } from '../errors/apiError.ts';
import { UNSTORABLE_TEXT as UNSTORABLE } from '../text/storableText.ts';

export const MAX_JSON_DEPTH = 64;

const describe = (text: string) => (text.includes('\u0000') ? 'contains a NUL character (\\u0000)' : 'contains an unpaired UTF-16 surrogate');
const childPath = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

export interface Unstorable {
  /** `text`: a NUL or an unpaired surrogate; `depth`: nested deeper than allowed; `number`: not a finite number. */
  kind: 'text' | 'depth' | 'number';
  message: string;
}

/** Why `value` (plain JSON data) cannot be stored, naming the path under `root`; null when it can. */
export function unstorableJson(value: unknown, root: string, maxDepth = MAX_JSON_DEPTH): Unstorable | null {
  // Iterative, so a hostile nesting depth cannot overflow this function's own stack.
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (UNSTORABLE.test(current)) return { kind: 'text', message: `${path} ${describe(current)}` };
      continue;
    }
    if (typeof current === 'number' && !Number.isFinite(current)) return { kind: 'number', message: `${path} is a number beyond the range of a double (JSON numbers must be finite)` };
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxDepth) return { kind: 'depth', message: `${path} nests deeper than ${maxDepth} levels` };
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: childPath(path, i), depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (UNSTORABLE.test(key)) return { kind: 'text', message: `${path} has a key that ${describe(key)}` };
      stack.push({ value: child, path: childPath(path, key), depth: depth + 1 });
    }
  }
  return null;
}

const refusalCodes = { text: 'INVALID_TEXT', depth: 'NESTING_TOO_DEEP', number: 'INVALID_JSON' } as const;

/** Caller input that cannot be stored, as the error every face answers (400, naming the path); null when it can. */
export function unstorableInput(value: unknown, root: string): ApiError | null {
  const problem = unstorableJson(value, root);
  return problem ? new ApiError(refusalCodes[problem.kind], `${problem.message}; such input cannot be stored`) : null;
}
