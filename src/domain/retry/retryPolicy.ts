/**
 * The one retry policy every loop uses (the supervisor's restarts, a delivery whose attempt failed
 * to run, a worker that cannot read an organization's secrets): exponential backoff with jitter, a
 * cap on the delay, and a cap on the tries that ends the item with a recorded outcome. Errors are
 * classified before anything is retried, so a failure that cannot get better is never retried:
 * - `retryable`: may pass (the database went away, a receiver is down); tried again after the delay.
 * - `terminal_for_worker`: this process cannot do it (its master key cannot open a secret), another
 *   may; this worker stops taking such items and says so in /health.
 * - `terminal_for_item`: the item can never succeed (a NUL the log refuses, a decider's refusal); it
 *   ends now with its recorded outcome, never retried.
 * Pure: the randomness for the jitter is passed in, so schedules are replayable.
 */
export type FailureClass = 'retryable' | 'terminal_for_worker' | 'terminal_for_item';

export interface RetryPolicy {
  /** The delay after the first failure. */
  initialDelayMs: number;
  /** The delay never grows past this. */
  maxDelayMs: number;
  /** Tries after which the item ends (its owner records why); Infinity for a loop that must go on (a supervised task). */
  maxTries: number;
  /** Each delay is drawn from [1 - jitter, 1] of its nominal value, so failures in step do not retry in step. */
  jitter: number;
}

export type RetryDecision = { kind: 'retry'; delayMs: number } | { kind: 'give_up'; reason: 'terminal' | 'tries_exhausted' };

/** The nominal delay after `failures` consecutive failures (1-based), doubled each time up to the cap, with jitter from `random` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, failures: number, random: number): number {
  const nominal = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, Math.min(failures - 1, 52)));
  return Math.round(nominal * (1 - policy.jitter + policy.jitter * random));
}

/** What follows the `failures`-th consecutive failure of class `failure`. */
export function decideRetry(policy: RetryPolicy, failure: FailureClass, failures: number, random: number): RetryDecision {
  if (failure !== 'retryable') return { kind: 'give_up', reason: 'terminal' };
  if (failures >= policy.maxTries) return { kind: 'give_up', reason: 'tries_exhausted' };
  return { kind: 'retry', delayMs: retryDelayMs(policy, failures, random) };
}

/** The policies in use, by loop: one place says how each loop backs off. */
export const RETRY_POLICIES = {
  /** A supervised background task: restarted for as long as the process lives. */
  supervisedTask: { initialDelayMs: 500, maxDelayMs: 30_000, maxTries: Infinity, jitter: 0.5 },
  /** A delivery attempt that failed to run (its outcome is bounded by the decider's start cap). */
  deliveryAttempt: { initialDelayMs: 1_000, maxDelayMs: 60_000, maxTries: Infinity, jitter: 0.5 },
  /** A projection stalled on an event: tried again after this (no jitter: one reader per process). */
  projectionStall: { initialDelayMs: 1_000, maxDelayMs: 60_000, maxTries: Infinity, jitter: 0 },
  /** An organization whose secrets this worker cannot open: looked at again after this. */
  unreadableSecrets: { initialDelayMs: 30_000, maxDelayMs: 600_000, maxTries: Infinity, jitter: 0.2 },
} as const satisfies Record<string, RetryPolicy>;
