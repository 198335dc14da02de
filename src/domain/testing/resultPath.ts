/**
 * A restricted path into a run's result: property names and array indexes, `issues[0].category`.
 * Parsed and looked up here, never evaluated (no JSONPath filters or scripts).
 */
export const RESULT_PATH_PATTERN = /^[A-Za-z_$][\w$-]*(\[\d+\])*(\.[A-Za-z_$][\w$-]*(\[\d+\])*)*$/;

export type PathSegment = string | number;

export function parseResultPath(path: string): PathSegment[] {
  if (!RESULT_PATH_PATTERN.test(path)) throw new Error(`not a result path: ${path}`);
  return path.split('.').flatMap((part) => {
    const [name, ...indexes] = part.split('[');
    return [name!, ...indexes.map((index) => Number(index.slice(0, -1)))];
  });
}

/** The value at `path` in `root` (own properties only), or undefined when it is not there. */
export function valueAt(root: unknown, path: string | undefined): unknown {
  if (path === undefined) return root;
  let current = root;
  for (const segment of parseResultPath(path)) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment >= current.length) return undefined;
      current = current[segment];
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}
