import type { z } from 'zod';

/** `steps[1].parallel[0].code`: the path of the offending field, as a reader would write it. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out === '' ? String(key) : `${out}.${String(key)}`;
  }, '');
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown field`);
    }
    const where = formatPath(issue.path);
    return [`${where || '(root)'}: ${issue.message}`];
  });
}
