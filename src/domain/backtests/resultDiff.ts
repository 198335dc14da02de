import { canonicalJson } from '../canonicalJson.ts';
import type { ResultChange } from './backtestEvents.ts';

/** A pair records at most this many changed paths; the rest are counted. */
export const MAX_CHANGES = 50;
/** Values in a change are shown as canonical JSON cut to this many characters. */
const EXCERPT = 200;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const excerpt = (value: unknown) => {
  const text = canonicalJson(value);
  return text.length <= EXCERPT ? text : `${text.slice(0, EXCERPT)}… (${text.length} characters)`;
};
/** A child's path as result paths are written: `a.b`, `a[0]`, and `a["odd key"]` for keys that are not names. */
export const childPath = (parent: string, key: string | number) => (typeof key === 'number' ? `${parent}[${key}]` : /^[A-Za-z_$][\w$-]*$/.test(key) ? (parent ? `${parent}.${key}` : key) : `${parent}[${JSON.stringify(key)}]`);

/**
 * The structural difference of two results, leaves first in document order: a key or array item
 * the candidate added or removed, or a value that changed (objects and arrays are descended into;
 * anything else is compared as canonical JSON). The root is the path "" (the whole result).
 */
export function diffResults(before: unknown, after: unknown): { changes: ResultChange[]; more: number } {
  const changes: ResultChange[] = [];
  let total = 0;
  const note = (change: ResultChange) => {
    total++;
    if (changes.length < MAX_CHANGES) changes.push(change);
  };
  const walk = (a: unknown, b: unknown, path: string) => {
    if (isObject(a) && isObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const key of keys) {
        const inA = Object.hasOwn(a, key) && a[key] !== undefined;
        const inB = Object.hasOwn(b, key) && b[key] !== undefined;
        const at = childPath(path, key);
        if (inA && !inB) note({ path: at, kind: 'removed', before: excerpt(a[key]) });
        else if (!inA && inB) note({ path: at, kind: 'added', after: excerpt(b[key]) });
        else if (inA && inB) walk(a[key], b[key], at);
      }
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const at = childPath(path, i);
        if (i >= b.length) note({ path: at, kind: 'removed', before: excerpt(a[i]) });
        else if (i >= a.length) note({ path: at, kind: 'added', after: excerpt(b[i]) });
        else walk(a[i], b[i], at);
      }
      return;
    }
    if (canonicalJson(a) !== canonicalJson(b)) note({ path, kind: 'changed', before: excerpt(a), after: excerpt(b) });
  };
  walk(before, after, '');
  return { changes, more: total - changes.length };
}
