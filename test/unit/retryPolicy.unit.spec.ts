import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RETRY_POLICIES, type RetryPolicy, retryDelayMs } from '../../src/domain/retry/retryPolicy.ts';

const policy: RetryPolicy = { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0.5 };

describe('the one retry policy', () => {
  it('doubles the delay per consecutive failure up to its cap, jittered down by at most its jitter', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(policy, n, 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([1, 2, 3].map((n) => retryDelayMs(policy, n, 0))).toEqual([50, 100, 200]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (failures, random) => {
        const delay = retryDelayMs(policy, failures, random);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (failures - 1)) * (1 - policy.jitter)));
        expect(delay).toBeLessThanOrEqual(policy.maxDelayMs);
        expect(delay).toBeGreaterThan(0);
      }),
    );
  });

  it('never retries at once: every policy in use waits before its first retry', () => {
    for (const p of Object.values(RETRY_POLICIES)) expect(retryDelayMs(p, 1, 0)).toBeGreaterThan(0);
  });
});
