import { describe, expect, it } from 'vitest';
import { decideModelRetry, retryAfterMs } from '../../src/domain/models/modelCallRetry.ts';

const limits = { maxRetries: 2, maxWaitMs: 20_000 };
const headers = (entries: Record<string, string>) => new Headers(entries);
const NOW = Date.parse('2026-11-26T12:00:00Z');

describe('whether a failed model call is made again', () => {
  it('is not, for a request the provider refused (only a provider that could not answer now is asked again)', () => {
    expect(decideModelRetry({ providerDown: false, retryAfterMs: undefined }, 1, limits, 0.5)).toEqual({ retry: false, reason: 'not_retryable' });
  });

  it('is, after the wait the provider asked for, when it fits in the bound', () => {
    expect(decideModelRetry({ providerDown: true, retryAfterMs: 1_500 }, 1, limits, 0.5)).toEqual({ retry: true, delayMs: 1_500 });
    expect(decideModelRetry({ providerDown: true, retryAfterMs: 20_000 }, 2, limits, 0.5)).toEqual({ retry: true, delayMs: 20_000 });
  });

  it('is not waited for at all when the wait asked for is longer than the bound: the call fails now, for a fallback to answer', () => {
    expect(decideModelRetry({ providerDown: true, retryAfterMs: 20_001 }, 1, limits, 0.5)).toEqual({ retry: false, reason: 'wait_too_long' });
  });

  it('backs off by the model-call policy without a wait asked for, never past the bound', () => {
    expect(decideModelRetry({ providerDown: true, retryAfterMs: undefined }, 1, limits, 1)).toEqual({ retry: true, delayMs: 500 });
    expect(decideModelRetry({ providerDown: true, retryAfterMs: undefined }, 2, limits, 1)).toEqual({ retry: true, delayMs: 1_000 });
    expect(decideModelRetry({ providerDown: true, retryAfterMs: undefined }, 2, { maxRetries: 2, maxWaitMs: 300 }, 1)).toEqual({ retry: true, delayMs: 300 });
  });

  it('stops once the retries are used, whatever was asked', () => {
    expect(decideModelRetry({ providerDown: true, retryAfterMs: 10 }, 3, limits, 0.5)).toEqual({ retry: false, reason: 'retries_used' });
    expect(decideModelRetry({ providerDown: true, retryAfterMs: 10 }, 1, { maxRetries: 0, maxWaitMs: 20_000 }, 0.5)).toEqual({ retry: false, reason: 'retries_used' });
  });
});

describe('the wait a provider asked for', () => {
  it.each([
    ['retry-after-ms (OpenAI)', headers({ 'retry-after-ms': '250' }), undefined, 250],
    ['Retry-After in seconds', headers({ 'retry-after': '7' }), undefined, 7_000],
    ['Retry-After as an HTTP date', headers({ 'retry-after': 'Thu, 26 Nov 2026 12:00:30 GMT' }), undefined, 30_000],
    ['an HTTP date already past', headers({ 'retry-after': 'Thu, 26 Nov 2026 11:00:00 GMT' }), undefined, 0],
    ['Gemini RetryInfo', undefined, { error: { code: 429, details: [{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure' }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.5s' }] } }, 1_500],
    ['nothing', headers({}), { error: { code: 503 } }, undefined],
    ['a header that is not a wait', headers({ 'retry-after': 'soon' }), undefined, undefined],
  ])('%s', (_what, given, body, expected) => {
    expect(retryAfterMs(given, body, NOW)).toBe(expected);
  });
});
