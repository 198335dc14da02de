import { describe, expect, it } from 'vitest';
import { createWriteCombiner } from '../../src/leases/writeCombiner.ts';

/** A write whose completion the test decides: each call is noted with its items and waits to be let go. */
function heldWrites() {
  const calls: { items: readonly number[]; done: () => void; fail: (error: Error) => void }[] = [];
  const write = (items: readonly number[]) => new Promise<void>((resolve, reject) => calls.push({ items, done: resolve, fail: reject }));
  return { calls, write };
}

describe('a write combiner', () => {
  it('writes the first item at once, and the ones that arrive while it is in flight together in the next write', async () => {
    const { calls, write } = heldWrites();
    const combined = createWriteCombiner(write);
    const first = combined(1);
    const rest = [combined(2), combined(3), combined(4)];
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    calls[0]!.done();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.done();
    await Promise.all(rest);
  });

  it("fails only the callers of the write that failed, and goes on with the next", async () => {
    const { calls, write } = heldWrites();
    const combined = createWriteCombiner(write);
    const first = combined(1);
    const second = combined(2);
    calls[0]!.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await new Promise((r) => setImmediate(r));
    expect(calls.map((c) => c.items)).toEqual([[1], [2]]);
    calls[1]!.done();
    await expect(second).resolves.toBeUndefined();
    const third = combined(3);
    expect(calls.map((c) => c.items)).toEqual([[1], [2], [3]]);
    calls[2]!.done();
    await expect(third).resolves.toBeUndefined();
  });

  it('splits a long queue into writes of at most maxBatch items', async () => {
    const { calls, write } = heldWrites();
    const combined = createWriteCombiner(write, 2);
    const all = [1, 2, 3, 4, 5].map((n) => combined(n));
    calls[0]!.done();
    await new Promise((r) => setImmediate(r));
    calls[1]!.done();
    await new Promise((r) => setImmediate(r));
    calls[2]!.done();
    await Promise.all(all);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4, 5]]);
  });
});
