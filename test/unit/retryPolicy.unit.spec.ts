import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RETRY_POLICIES, type RetryPolicy, assertRetryPolicies, decideRetry, retryDelayMs, retryPolicyProblems } from '../../src/domain/retry/retryPolicy.ts';
import { retrying } from '../../src/supervision/retrying.ts';

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

describe('every retry through the one policy (issue 60 point 7)', () => {
  it('classifies what a loop sees: a terminal failure ends at once, a retryable one backs off until the attempt cap', () => {
    const policy = { initialDelayMs: 10, maxDelayMs: 40, jitter: 0, maxAttempts: 3 };
    expect(decideRetry(policy, 1, 'terminal', 0.5)).toEqual({ retry: false, why: 'terminal' });
    expect(decideRetry(policy, 1, 'retryable', 0.5)).toEqual({ retry: true, delayMs: 10 });
    expect(decideRetry(policy, 2, 'retryable', 0.5)).toEqual({ retry: true, delayMs: 20 });
    expect(decideRetry(policy, 3, 'retryable', 0.5)).toEqual({ retry: false, why: 'attempts_exhausted' });
    // A loop that lives with its process has no cap, only the delay's.
    expect(decideRetry({ ...policy, maxAttempts: undefined }, 1_000, 'retryable', 0.5)).toEqual({ retry: true, delayMs: 40 });
  });

  it('refuses settings no loop can follow, naming each, and the policies in use pass', () => {
    expect(retryPolicyProblems({ initialDelayMs: 0, maxDelayMs: -1, jitter: 2, maxAttempts: 0 })).toEqual([
      'initialDelayMs must be a positive number of milliseconds (got 0)',
      'maxDelayMs must be at least initialDelayMs (got -1 < 0)',
      'jitter must be between 0 and 1 (got 2)',
      'maxAttempts must be a whole number of at least 1 (got 0)',
    ]);
    expect(() => assertRetryPolicies({ broken: { initialDelayMs: 5, maxDelayMs: 1, jitter: 0 } })).toThrow(/broken: maxDelayMs must be at least initialDelayMs/);
    expect(() => assertRetryPolicies(RETRY_POLICIES)).not.toThrow();
    // The bounded retries of one operation (an append, a command's conflict, a chain) have a cap; nothing is tried again at once.
    for (const name of ['transientAppend', 'commandConflict', 'chainConflict', 'lostConnectionRead'] as const) {
      expect(RETRY_POLICIES[name].maxAttempts, name).toBeGreaterThan(1);
      expect(RETRY_POLICIES[name].initialDelayMs, name).toBeGreaterThan(0);
    }
  });

  it('retries an operation after the backoff, throws a terminal failure at once, and the last failure once the cap is reached', async () => {
    const waits: number[] = [];
    const options = { policy: { initialDelayMs: 10, maxDelayMs: 100, jitter: 0, maxAttempts: 4 }, classify: (e: unknown) => ((e as Error).message === 'lost' ? ('retryable' as const) : ('terminal' as const)), random: () => 0, sleep: async (ms: number) => void waits.push(ms) };
    let calls = 0;
    expect(await retrying(options, async () => (++calls < 3 ? Promise.reject(new Error('lost')) : 'done'))).toBe('done');
    expect([calls, waits]).toEqual([3, [10, 20]]);
    waits.length = 0;
    await expect(retrying(options, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(waits).toEqual([]);
    calls = 0;
    await expect(retrying(options, () => (calls++, Promise.reject(new Error('lost'))))).rejects.toThrow('lost');
    expect([calls, waits]).toEqual([4, [10, 20, 40]]);
  });
});
