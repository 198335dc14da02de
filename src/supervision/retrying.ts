import { setTimeout as sleep } from 'node:timers/promises';
import { type FailureClass, type RetryPolicy, decideRetry } from '../domain/retry/retryPolicy.ts';

export interface RetryOptions {
  /** A bounded policy: the operation is tried at most `maxAttempts` times. */
  policy: RetryPolicy & { maxAttempts: number };
  /** What a failure is: `retryable` tries again after the policy's delay, `terminal` ends at once. */
  classify: (error: unknown) => FailureClass;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** How a retry waits and draws its jitter: real time and Math.random unless given (a simulation's virtual clock and seed). */
export type RetryWaits = Pick<RetryOptions, 'random' | 'sleep'>;

/**
 * Runs `operation` (given its 1-based attempt) until it succeeds, by the one retry policy: a
 * retryable failure waits the policy's backoff and tries again, a terminal one, or the last allowed
 * attempt's, is thrown as it was, for the caller to record. Nothing is tried again at once.
 */
export async function retrying<T>(options: RetryOptions, operation: (attempt: number) => Promise<T>): Promise<T> {
  const random = options.random ?? Math.random;
  const wait = options.sleep ?? (async (ms: number) => void (await sleep(ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      const decision = decideRetry(options.policy, attempt, options.classify(error), random());
      if (!decision.retry) throw error;
      await wait(decision.delayMs);
    }
  }
}
