/**
 * The one retry policy every loop uses (the supervisor's restarts, a delivery whose attempt failed
 * to run, a worker that cannot read an organization's secrets, a stalled projection, the claim loops
 * of jobs and deliveries, a read replica that failed, a log read on a lost connection): exponential
 * backoff with jitter and a cap on the delay. A failure that cannot get better is not retried by its
 * loop: one terminal for the worker (its master key cannot open a secret) takes the item off this
 * worker and says so in /health; one terminal for the item (a decider's refusal, the start cap of a
 * delivery attempt) ends it with its recorded outcome. Pure: the randomness for the jitter is passed
 * in, so schedules are replayable.
 */

export interface RetryPolicy {
  /** The delay after the first failure. */
  initialDelayMs: number;
  /** The delay never grows past this. */
  maxDelayMs: number;
  /** Each delay is drawn from [1 - jitter, 1] of its nominal value, so failures in step do not retry in step. */
  jitter: number;
}

/** The nominal delay after `failures` consecutive failures (1-based), doubled each time up to the cap, with jitter from `random` in [0, 1). */
export function retryDelayMs(policy: RetryPolicy, failures: number, random: number): number {
  const nominal = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, Math.min(failures - 1, 52)));
  return Math.round(nominal * (1 - policy.jitter + policy.jitter * random));
}

/** The policies in use, by loop: one place says how each loop backs off. */
export const RETRY_POLICIES = {
  /** A supervised background task: restarted for as long as the process lives. */
  supervisedTask: { initialDelayMs: 500, maxDelayMs: 30_000, jitter: 0.5 },
  /** A claim loop (jobs, deliveries) whose claim statement failed: its database is likely away. */
  claimLoop: { initialDelayMs: 250, maxDelayMs: 10_000, jitter: 0.5 },
  /** A read of the log whose pooled connection was lost: tried again on another after this (five tries, some 300 ms in all). */
  lostConnectionRead: { initialDelayMs: 20, maxDelayMs: 160, jitter: 0.5 },
  /** A read replica that failed to answer: reads go to the primary until this wait is over. */
  readReplica: { initialDelayMs: 1_000, maxDelayMs: 30_000, jitter: 0.5 },
  /** A delivery attempt that failed to run (its outcome is bounded by the decider's start cap). */
  deliveryAttempt: { initialDelayMs: 1_000, maxDelayMs: 60_000, jitter: 0.5 },
  /** A projection stalled on an event: tried again after this (no jitter: one reader per process). */
  projectionStall: { initialDelayMs: 1_000, maxDelayMs: 60_000, jitter: 0 },
  /** A model call its provider could not answer, when it did not say how long to wait (capped by SEQFLOW_LLM_MAX_RETRY_WAIT_MS). */
  modelCall: { initialDelayMs: 500, maxDelayMs: 8_000, jitter: 0.5 },
  /** An organization whose secrets this worker cannot open: looked at again after this. */
  unreadableSecrets: { initialDelayMs: 30_000, maxDelayMs: 600_000, jitter: 0.2 },
} as const satisfies Record<string, RetryPolicy>;
