import { type RetryPolicy, retryDelayMs } from '../domain/retry/retryPolicy.ts';

/**
 * The wait a loop keeps after its step failed, by the one retry policy: a claim loop whose database
 * is away tries again after 250 ms, then 500, 1,000… up to the policy's cap, instead of once a poll
 * for as long as the outage lasts. One success starts the count over.
 */
export function createFailureBackoff(policy: RetryPolicy, random: () => number = Math.random) {
  let failures = 0;
  let notBefore = 0;
  return {
    /** Counts a failure at `nowMs` and answers how long to wait before the next try. */
    failed(nowMs: number): number {
      failures++;
      const delay = retryDelayMs(policy, failures, random());
      notBefore = nowMs + delay;
      return delay;
    },
    succeeded() {
      failures = 0;
      notBefore = 0;
    },
    /** Whether the wait after the last failure is over at `nowMs` (always, after a success). */
    due: (nowMs: number) => nowMs >= notBefore,
    failures: () => failures,
  };
}
