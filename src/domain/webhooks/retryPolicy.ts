/**
 * Spec section 6, Retries: what a receiver's answer means, and when the next attempt is due.
 * 2xx succeeds; 408, 429, other 5xx, network errors and timeouts are retried; 3xx (never followed)
 * and other 4xx fail for good; an address refused by the outbound guard fails for good; the sixth
 * failed attempt is dead-lettered. A failure on the worker's side (`internal_error`: the outcome could
 * not be recorded, the attempt could not be made) counts as an attempt that is retried, like a 500:
 * nothing about a delivery is re-attempted without counting.
 */
export const MAX_ATTEMPTS = 6;
/** After failed attempt 1..5: +1 min, +5 min, +30 min, +2 h, +12 h. */
export const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000] as const;

export type AttemptResult =
  | { kind: 'response'; status: number }
  | { kind: 'network_error' }
  | { kind: 'timeout' }
  | { kind: 'blocked_address' }
  | { kind: 'internal_error' };

export type AttemptVerdict = 'succeeded' | 'retry' | 'permanent';

export function classifyAttempt(result: AttemptResult): AttemptVerdict {
  switch (result.kind) {
    case 'response':
      if (result.status >= 200 && result.status < 300) return 'succeeded';
      if (result.status === 408 || result.status === 429 || result.status >= 500) return 'retry';
      return 'permanent'; // 3xx is never followed; other 4xx will not get better
    case 'network_error':
    case 'timeout':
    case 'internal_error':
      return 'retry';
    case 'blocked_address':
      return 'permanent';
  }
}

export type NextStep = { status: 'succeeded' } | { status: 'failed_permanent' } | { status: 'dead_letter' } | { status: 'failed_retry'; nextAttemptAt: string };

/** What follows attempt number `attempt` (1-based) that ended at `endedAt`. */
export function nextStep(verdict: AttemptVerdict, attempt: number, endedAt: Date, delaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS): NextStep {
  if (verdict === 'succeeded') return { status: 'succeeded' };
  if (verdict === 'permanent') return { status: 'failed_permanent' };
  if (attempt >= MAX_ATTEMPTS) return { status: 'dead_letter' };
  const delay = delaysMs[Math.min(attempt, delaysMs.length) - 1]!;
  return { status: 'failed_retry', nextAttemptAt: new Date(endedAt.getTime() + delay).toISOString() };
}
