import { childPath } from '../../src/domain/backtests/resultDiff.ts';

/** A result's leaves as rows of path (written as the backtest's diff writes them) and value, for showing two results side by side. */
export function leavesOf(value: unknown, path = ''): Map<string, string> {
  const rows = new Map<string, string>();
  const walk = (v: unknown, at: string) => {
    if (v !== null && typeof v === 'object' && Object.keys(v).length > 0) {
      if (Array.isArray(v)) v.forEach((item, i) => walk(item, childPath(at, i)));
      else for (const key of Object.keys(v).sort()) walk((v as Record<string, unknown>)[key], childPath(at, key));
      return;
    }
    rows.set(at, JSON.stringify(v) ?? 'null');
  };
  walk(value, path);
  return rows;
}

/** Every path of either result, in order, with both values and how it changed. */
export function sideBySide(before: unknown, after: unknown) {
  const a = leavesOf(before);
  const b = leavesOf(after);
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  return paths.map((path) => {
    const left = a.get(path);
    const right = b.get(path);
    const kind = left === undefined ? 'added' : right === undefined ? 'removed' : left === right ? 'same' : 'changed';
    return { path: path || '(the whole result)', left: left ?? '', right: right ?? '', kind };
  });
}
