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
  /**
   * Tries in all (the first included) before the loop gives up with the last failure, recorded by
   * its owner. Unset only for a loop that must go on while its process lives (a supervised task, a
   * claim loop): its end is the process's.
   */
  maxAttempts?: number;
}

/** What the policy makes of a failure, as its loop classifies it (Temporal's non-retryable errors, Restate's terminal ones). */
export type FailureClass = 'retryable' | 'terminal';

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; why: 'terminal' | 'attempts_exhausted' };

/**
 * Whether to try again after `failures` consecutive failures (1-based), the last of them of class
 * `kind`: never for a terminal failure or past `maxAttempts`, else after the backoff's delay.
 */
export function decideRetry(policy: RetryPolicy, failures: number, kind: FailureClass, random: number): RetryDecision {
  if (kind === 'terminal') return { retry: false, why: 'terminal' };
  if (policy.maxAttempts !== undefined && failures >= policy.maxAttempts) return { retry: false, why: 'attempts_exhausted' };
  return { retry: true, delayMs: retryDelayMs(policy, failures, random) };
}

/** What is wrong with a policy's settings (none: an empty list), each naming the setting. */
export function retryPolicyProblems(policy: RetryPolicy): string[] {
  const problems: string[] = [];
  if (!Number.isFinite(policy.initialDelayMs) || policy.initialDelayMs <= 0) problems.push(`initialDelayMs must be a positive number of milliseconds (got ${policy.initialDelayMs})`);
  if (!Number.isFinite(policy.maxDelayMs) || policy.maxDelayMs < policy.initialDelayMs) problems.push(`maxDelayMs must be at least initialDelayMs (got ${policy.maxDelayMs} < ${policy.initialDelayMs})`);
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) problems.push(`jitter must be between 0 and 1 (got ${policy.jitter})`);
  if (policy.maxAttempts !== undefined && !(Number.isInteger(policy.maxAttempts) && policy.maxAttempts >= 1)) problems.push(`maxAttempts must be a whole number of at least 1 (got ${policy.maxAttempts})`);
  return problems;
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
  lostConnectionRead: { initialDelayMs: 20, maxDelayMs: 160, jitter: 0.5, maxAttempts: 5 },
  /** An append whose connection was lost: sent again with the same event ids (the log deduplicates them), three tries in all. */
  transientAppend: { initialDelayMs: 20, maxDelayMs: 200, jitter: 0.5, maxAttempts: 3 },
  /** A command whose append met a concurrent writer: decided again on fresh state, six tries in all. */
  commandConflict: { initialDelayMs: 2, maxDelayMs: 50, jitter: 0.5, maxAttempts: 6 },
  /** A KurrentDB append whose chain start another writer moved: chained again on fresh state, six tries in all. */
  chainConflict: { initialDelayMs: 2, maxDelayMs: 50, jitter: 0.5, maxAttempts: 6 },
  /** A read replica that failed to answer: reads go to the primary until this wait is over. */
  readReplica: { initialDelayMs: 1_000, maxDelayMs: 30_000, jitter: 0.5 },
  /** A delivery attempt that failed to run (its outcome is bounded by the decider's start cap). */
  deliveryAttempt: { initialDelayMs: 1_000, maxDelayMs: 60_000, jitter: 0.5 },
  /** A projection stalled on an event: tried again after this (no jitter: one reader per process). */
  projectionStall: { initialDelayMs: 1_000, maxDelayMs: 60_000, jitter: 0 },
  /** A model call its provider could not answer, when it did not say how long to wait (capped by SEQFLOW_LLM_MAX_RETRY_WAIT_MS). */
  modelCall: { initialDelayMs: 500, maxDelayMs: 8_000, jitter: 0.5 },
  /** An http block's request that got no answer, or a 429, 5xx or 408: three tries in all, the same Idempotency-Key on each. */
  httpRequest: { initialDelayMs: 500, maxDelayMs: 4_000, jitter: 0.5, maxAttempts: 3 },
  /** An organization whose secrets this worker cannot open: looked at again after this. */
  unreadableSecrets: { initialDelayMs: 30_000, maxDelayMs: 600_000, jitter: 0.2 },
} as const satisfies Record<string, RetryPolicy>;

/** Throws, naming each policy and setting, when any of `policies` is not one a loop can follow: checked as a process starts. */
export function assertRetryPolicies(policies: Readonly<Record<string, RetryPolicy>>): void {
  const problems = Object.entries(policies).flatMap(([name, policy]) => retryPolicyProblems(policy).map((problem) => `${name}: ${problem}`));
  if (problems.length > 0) throw new Error(`invalid retry policies: ${problems.join('; ')}`);
}
