import { RETRY_POLICIES, retryDelayMs } from '../retry/retryPolicy.ts';

/**
 * Whether a model call that failed is made again, and after how long. Only a provider that could not
 * answer now (a 429 or 5xx, a timeout, no connection) is asked again, at most `maxRetries` times. A
 * wait the provider asked for (`Retry-After`, OpenAI's `retry-after-ms`, Gemini's `RetryInfo`) is
 * kept when it fits in `maxWaitMs` (SEQFLOW_LLM_MAX_RETRY_WAIT_MS); one that does not is not waited
 * for at all: the call fails at once as the provider being down, so a fallback model answers instead
 * of a caller waiting minutes. Without one, the model-call policy's backoff (capped by `maxWaitMs`).
 * Pure: the jitter's randomness is passed in.
 */
export interface ModelRetryLimits {
  maxRetries: number;
  maxWaitMs: number;
}

export type ModelRetryDecision = { retry: true; delayMs: number } | { retry: false; reason: 'not_retryable' | 'retries_used' | 'wait_too_long' };

export function decideModelRetry(
  failure: { providerDown: boolean; retryAfterMs: number | undefined },
  /** Failed calls so far, this one included (1-based). */
  failures: number,
  limits: ModelRetryLimits,
  random: number,
): ModelRetryDecision {
  if (!failure.providerDown) return { retry: false, reason: 'not_retryable' };
  if (failures > limits.maxRetries) return { retry: false, reason: 'retries_used' };
  if (failure.retryAfterMs !== undefined) return failure.retryAfterMs > limits.maxWaitMs ? { retry: false, reason: 'wait_too_long' } : { retry: true, delayMs: failure.retryAfterMs };
  return { retry: true, delayMs: Math.min(limits.maxWaitMs, retryDelayMs(RETRY_POLICIES.modelCall, failures, random)) };
}

/**
 * The wait a provider asked for, in milliseconds: `retry-after-ms` (OpenAI), `Retry-After` in
 * seconds or as an HTTP date (RFC 9110), or a Gemini error's `RetryInfo.retryDelay` ("30s",
 * "1.5s"). Undefined when none is given or it cannot be read (never negative).
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, body: unknown, nowMs: number): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const after = headers?.get('retry-after')?.trim();
  if (after) {
    if (/^\d+(\.\d+)?$/.test(after)) return Math.round(Number(after) * 1000);
    const at = Date.parse(after);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  return geminiRetryDelay(body);
}

function geminiRetryDelay(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details as { '@type'?: unknown; retryDelay?: unknown }[]) {
    if (typeof detail?.['@type'] === 'string' && detail['@type'].endsWith('google.rpc.RetryInfo') && typeof detail.retryDelay === 'string') {
      const seconds = /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay);
      if (seconds) return Math.round(Number(seconds[1]) * 1000);
    }
  }
  return undefined;
}
