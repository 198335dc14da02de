import type { FailureClass } from '../../retry/retryPolicy.ts';
import type { HttpOutcome } from './httpEvents.ts';

/** How one attempt ended, as the retry policy and the step's failure see it. */
export type AttemptVerdict = { ok: true } | { ok: false; class: FailureClass; code: HttpFailureCode; message: string };

export type HttpFailureCode = 'HTTP_REQUEST_FAILED' | 'HTTP_STATUS_UNEXPECTED' | 'HTTP_BLOCKED_HOST' | 'HTTP_RESPONSE_TOO_LARGE';

/** Statuses a server uses to say "later": tried again by the retry policy. */
const RETRYABLE_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * An attempt's verdict: an expected status (any 2xx unless the block lists its own) succeeds; a
 * status that says "later" (429, 5xx, 408) or no answer at all (a timeout, a reset) is tried again;
 * any other status, an address the guard refuses and a response past its cap end the step. A
 * redirect is a status like another: it is never followed (its target could be anywhere).
 */
export function judgeAttempt(outcome: HttpOutcome, status: number | null, expected: readonly number[] | undefined): AttemptVerdict {
  if (outcome === 'response' && status !== null) {
    if (expected ? expected.includes(status) : status >= 200 && status < 300) return { ok: true };
    return { ok: false, class: RETRYABLE_STATUSES.has(status) ? 'retryable' : 'terminal', code: 'HTTP_STATUS_UNEXPECTED', message: `the server answered ${status}` };
  }
  if (outcome === 'blocked_address') return { ok: false, class: 'terminal', code: 'HTTP_BLOCKED_HOST', message: 'the request was refused by the outbound address guard' };
  if (outcome === 'too_large') return { ok: false, class: 'terminal', code: 'HTTP_RESPONSE_TOO_LARGE', message: 'the response was larger than the block may read' };
  return { ok: false, class: 'retryable', code: 'HTTP_REQUEST_FAILED', message: outcome === 'timeout' ? 'the request timed out' : 'the request got no answer' };
}
