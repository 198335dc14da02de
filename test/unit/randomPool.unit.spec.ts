import { describe, expect, it } from 'vitest';
import { createRandomPool } from '../../src/security/randomPool.ts';

describe('the random pool (data keys and IVs)', () => {
  it('hands out every byte once: takes across several refills never repeat, and none is the zeroed buffer', () => {
    const take = createRandomPool(64);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const bytes = take(i % 2 === 0 ? 32 : 12);
      expect(bytes.length).toBe(i % 2 === 0 ? 32 : 12);
      expect(bytes.equals(Buffer.alloc(bytes.length))).toBe(false);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(200);
  });

  it('gives copies: changing one taken buffer changes nothing taken later', () => {
    const take = createRandomPool(64);
    const first = take(16);
    const copy = Buffer.from(first);
    first.fill(0);
    const later = [take(16), take(16), take(16), take(16)];
    expect(later.some((b) => b.equals(Buffer.alloc(16)))).toBe(false);
    expect(copy.equals(Buffer.alloc(16))).toBe(false);
  });

  it('serves a take larger than the pool straight from the generator', () => {
    const take = createRandomPool(16);
    expect(take(100).length).toBe(100);
    expect(take(8).length).toBe(8);
  });
});
