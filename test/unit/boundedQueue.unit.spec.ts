import { describe, expect, it } from 'vitest';
import { createBoundedQueue } from '../../src/workers/boundedQueue.ts';

describe('a bounded queue', () => {
  it('gives items back first in, first out, and refuses a push past its bound', () => {
    const queue = createBoundedQueue<number>(3);
    expect([1, 2, 3, 4].map((n) => queue.push(n))).toEqual([true, true, true, false]);
    expect(queue.shift()).toBe(1);
    expect(queue.push(5)).toBe(true);
    expect([queue.shift(), queue.shift(), queue.shift(), queue.shift()]).toEqual([2, 3, 5, undefined]);
    expect(queue.size()).toBe(0);
    queue.push(6);
    queue.clear();
    expect(queue.shift()).toBeUndefined();
  });
});
