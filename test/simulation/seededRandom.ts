/**
 * A seeded pseudo-random source (mulberry32): the same seed draws the same numbers, so a schedule
 * that broke an invariant is replayed from its seed alone.
 */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in [0, n). */
    int: (n: number) => Math.floor(next() * n),
    /** True with probability `p`. */
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}

export type SeededRandom = ReturnType<typeof seededRandom>;

/**
 * Ids for a schedule's runs, blocks and deliveries, drawn from their own stream of the seed (so the
 * schedule's other draws are those of the seed alone): a replay names everything as the first run
 * did, and what orders by id (group commit sorts appends by stream id) orders the same.
 */
export function seededIds(seed: number) {
  const random = seededRandom(seed ^ 0x5eed1d5);
  const hex = (digits: number) => Array.from({ length: digits }, () => random.int(16).toString(16)).join('');
  return () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[random.int(4)]}${hex(3)}-${hex(12)}`;
}
