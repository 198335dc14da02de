import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBoundedMap } from '../../src/collections/boundedMap.ts';

type Operation = { kind: 'set'; key: number; value: number } | { kind: 'delete'; key: number } | { kind: 'get'; key: number };

/** The same map as the simplest code that can be right: an array of entries, oldest first. */
function modelMap(max: number) {
  let entries: [number, number][] = [];
  return {
    get: (key: number) => entries.find(([k]) => k === key)?.[1],
    set(key: number, value: number) {
      const at = entries.findIndex(([k]) => k === key);
      if (at >= 0) entries[at] = [key, value];
      else {
        if (entries.length >= max) entries = entries.slice(1);
        entries.push([key, value]);
      }
    },
    delete(key: number) {
      entries = entries.filter(([k]) => k !== key);
    },
  };
}

describe('a bounded map', () => {
  it('keeps the newest entries, the oldest set going first', () => {
    const map = createBoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10); // set again: neither evicts nor becomes newer
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('does not count a deleted entry, and an entry deleted and set again is the newest', () => {
    const map = createBoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.delete('a');
    map.set('c', 3);
    map.set('a', 4);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([4, undefined, 3]);
  });

  it('answers as the simplest map that can be right over any sequence of sets, deletes and reads, long past its bound', () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 40 }), value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 40 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(operation, { maxLength: 400 }), (max, operations: Operation[]) => {
        const map = createBoundedMap<number, number>(max);
        const model = modelMap(max);
        for (const op of operations) {
          if (op.kind === 'set') {
            map.set(op.key, op.value);
            model.set(op.key, op.value);
          } else if (op.kind === 'delete') {
            map.delete(op.key);
            model.delete(op.key);
          } else expect(map.get(op.key)).toBe(model.get(op.key));
        }
        for (let key = 0; key <= 40; key++) expect(map.get(key)).toBe(model.get(key));
      }),
      { numRuns: 500 },
    );
  });
});
