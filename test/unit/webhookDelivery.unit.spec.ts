import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/decider.ts';
import { ERROR_EXCERPT_MAX, MAX_STARTS_PER_ATTEMPT, delivery } from '../../src/domain/webhooks/delivery.ts';
import type { DeliveryEvent } from '../../src/domain/webhooks/deliveryEvents.ts';
import { type AttemptResult, DEFAULT_RETRY_DELAYS_MS, MAX_ATTEMPTS, classifyAttempt, nextStep } from '../../src/domain/webhooks/retryPolicy.ts';
import { MAX_WEBHOOK_BODY_BYTES, webhookPayload } from '../../src/domain/webhooks/webhookPayload.ts';

describe('receiver outcomes (spec section 6)', () => {
  it.each<[string, AttemptResult, string]>([
    ['200', { kind: 'response', status: 200 }, 'succeeded'],
    ['204', { kind: 'response', status: 204 }, 'succeeded'],
    ['301 (never followed)', { kind: 'response', status: 301 }, 'permanent'],
    ['302', { kind: 'response', status: 302 }, 'permanent'],
    ['400', { kind: 'response', status: 400 }, 'permanent'],
    ['404', { kind: 'response', status: 404 }, 'permanent'],
    ['408', { kind: 'response', status: 408 }, 'retry'],
    ['429', { kind: 'response', status: 429 }, 'retry'],
    ['500', { kind: 'response', status: 500 }, 'retry'],
    ['503', { kind: 'response', status: 503 }, 'retry'],
    ['network error', { kind: 'network_error' }, 'retry'],
    ['timeout', { kind: 'timeout' }, 'retry'],
    ['address refused by the guard', { kind: 'blocked_address' }, 'permanent'],
    ["the worker's own failure", { kind: 'internal_error' }, 'retry'],
  ])('%s -> %s', (_label, result, verdict) => {
    expect(classifyAttempt(result)).toBe(verdict);
  });

  it('retries at +1 min, +5 min, +30 min, +2 h, +12 h after each failed attempt, and dead-letters the sixth', () => {
    const ended = new Date('2026-01-01T00:00:00.000Z');
    const schedule = [1, 2, 3, 4, 5].map((attempt) => nextStep('retry', attempt, ended));
    expect(schedule.map((s) => (s.status === 'failed_retry' ? Date.parse(s.nextAttemptAt) - ended.getTime() : null))).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
    expect(nextStep('retry', MAX_ATTEMPTS, ended)).toEqual({ status: 'dead_letter' });
    expect(nextStep('permanent', 1, ended)).toEqual({ status: 'failed_permanent' });
    expect(nextStep('succeeded', 6, ended)).toEqual({ status: 'succeeded' });
    expect(DEFAULT_RETRY_DELAYS_MS).toHaveLength(MAX_ATTEMPTS - 1);
    expect(nextStep('retry', 2, ended, [10, 20, 30, 40, 50])).toEqual({ status: 'failed_retry', nextAttemptAt: new Date(ended.getTime() + 20).toISOString() });
  });
});

describe('webhook payload', () => {
  const base = { deliveryId: 'd1', executionId: 'e1', flowId: 'f1', organizationId: 'o1', durationMs: 12, occurredAt: '2026-01-01T00:00:00.000Z' };

  it('carries the spec fields plus deliveryId', () => {
    expect(webhookPayload(base, { event: 'flow.completed', result: { a: 1 } }, '/jobs/e1').payload).toEqual({ event: 'flow.completed', ...base, result: { a: 1 }, truncated: false });
    expect(webhookPayload(base, { event: 'flow.failed', errorMessage: 'boom', failureReason: 'error' }, '/jobs/e1').payload).toEqual({
      event: 'flow.failed',
      ...base,
      result: null, // the spec: `result` is an object or null
      errorMessage: 'boom',
      failureReason: 'error',
      truncated: false,
    });
  });

  it("reports a cancelled run as the spec's `error`, its message naming the cancellation", () => {
    const { payload } = webhookPayload(base, { event: 'flow.failed', errorMessage: 'cancelled by API key k1: no longer needed', failureReason: 'cancelled' }, '/jobs/e1');
    expect(payload).toMatchObject({ failureReason: 'error', errorMessage: 'cancelled by API key k1: no longer needed', truncated: false });
  });

  it('cuts a failure message that would take the body over 256 KB, naming its full length', () => {
    for (const unit of ['x', 'é', '"', '\u0001', '😀']) {
      const errorMessage = unit.repeat(Math.ceil((2 * MAX_WEBHOOK_BODY_BYTES) / unit.length));
      const { payload, body } = webhookPayload(base, { event: 'flow.failed', errorMessage, failureReason: 'error' }, '/jobs/e1');
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES);
      expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_WEBHOOK_BODY_BYTES - 1024);
      expect(payload.truncated).toBe(true);
      expect(payload.errorMessage).toContain(`the message is ${errorMessage.length} characters`);
      expect(JSON.parse(body)).toEqual(payload);
    }
  });

  it('replaces a result that would take the body over 256 KB and says where to fetch it', () => {
    const result = { text: 'x'.repeat(MAX_WEBHOOK_BODY_BYTES) };
    const { payload, body } = webhookPayload(base, { event: 'flow.completed', result }, '/api/v1/seq/a/b/c/jobs/e1');
    expect(payload.truncated).toBe(true);
    expect(payload.result).toEqual({ truncated: true, sizeBytes: Buffer.byteLength(JSON.stringify(result)), fetchFrom: '/api/v1/seq/a/b/c/jobs/e1' });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES);
  });
});

describe('delivery decider', () => {
  const created: DeliveryEvent = {
    type: 'DeliveryCreated',
    data: { deliveryId: 'd1', organizationId: 'o1', executionId: 'e1', flowId: 'f1', event: 'flow.completed', url: 'https://hooks.example/x', body: '{}', truncated: false },
  };
  const at = (iso: string) => ({ now: iso });
  const run = (events: DeliveryEvent[], command: Parameters<typeof delivery.decide>[0]) => {
    const out = delivery.decide(command, fold(delivery, events));
    return [...events, ...out];
  };

  it('moves pending -> in_flight -> failed_retry -> (due) in_flight -> succeeded', () => {
    let events = run([], { type: 'CreateDelivery', event: created });
    expect(fold(delivery, events).status).toBe('pending');
    events = run(events, { type: 'StartAttempt', data: at('2026-01-01T00:00:00.000Z') });
    expect(fold(delivery, events)).toMatchObject({ status: 'in_flight', attempts: 1 });
    events = run(events, { type: 'FinishAttempt', data: { attempt: 1, start: 1, result: { kind: 'response', status: 503 }, errorExcerpt: 'busy', endedAt: '2026-01-01T00:00:01.000Z', durationMs: 1000, secretVersions: [1] } });
    expect(fold(delivery, events)).toMatchObject({ status: 'failed_retry', nextAttemptAt: '2026-01-01T00:01:01.000Z' });
    expect(() => run(events, { type: 'StartAttempt', data: at('2026-01-01T00:00:30.000Z') })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    events = run(events, { type: 'StartAttempt', data: at('2026-01-01T00:01:01.000Z') });
    events = run(events, { type: 'FinishAttempt', data: { attempt: 2, start: 1, result: { kind: 'response', status: 200 }, errorExcerpt: null, endedAt: '2026-01-01T00:01:02.000Z', durationMs: 50, secretVersions: [2, 1] } });
    expect(fold(delivery, events)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(() => run(events, { type: 'StartAttempt', data: at('2026-01-02T00:00:00.000Z') })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });

  it("ends a delivery still to be made when its run's data is erased or unreadable, once, and leaves an ended one as it ended", () => {
    const end = (reason: 'data_erased' | 'data_unreadable') => ({ type: 'End' as const, data: { reason, now: '2026-01-01T00:02:00.000Z' } });
    const retrying = run(run(run([], { type: 'CreateDelivery', event: created }), { type: 'StartAttempt', data: at('2026-01-01T00:00:00.000Z') }), { type: 'FinishAttempt', data: { attempt: 1, start: 1, result: { kind: 'response', status: 503 }, errorExcerpt: 'busy', endedAt: '2026-01-01T00:00:01.000Z', durationMs: 1000, secretVersions: [1] } });
    for (const before of [[created], retrying]) {
      const ended = run(before, end('data_erased'));
      expect(ended.at(-1)).toEqual({ type: 'DeliveryEnded', data: { deliveryId: 'd1', executionId: 'e1', reason: 'data_erased', endedAt: '2026-01-01T00:02:00.000Z' } });
      expect(fold(delivery, ended)).toMatchObject({ status: 'data_erased', nextAttemptAt: null });
      expect(run(ended, end('data_erased'))).toHaveLength(ended.length);
      expect(() => run(ended, { type: 'StartAttempt', data: at('2026-01-01T00:03:00.000Z') })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
      expect(() => run(ended, { type: 'Redeliver', data: at('2026-01-01T00:03:00.000Z') })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    }
    expect(fold(delivery, run([created], end('data_unreadable'))).status).toBe('data_unreadable');
    const delivered = run(run([created], { type: 'StartAttempt', data: at('2026-01-01T00:00:00.000Z') }), { type: 'FinishAttempt', data: { attempt: 1, start: 1, result: { kind: 'response', status: 200 }, errorExcerpt: null, endedAt: '2026-01-01T00:00:01.000Z', durationMs: 5, secretVersions: [1] } });
    expect(run(delivered, end('data_erased'))).toHaveLength(delivered.length);
  });

  it('re-attempts an attempt whose worker died under the same number, and ignores a replayed creation', () => {
    let events = run([], { type: 'CreateDelivery', event: created });
    events = run(events, { type: 'StartAttempt', data: at('2026-01-01T00:00:00.000Z') });
    events = run(events, { type: 'StartAttempt', data: at('2026-01-01T00:05:00.000Z') });
    expect(events.filter((e) => e.type === 'DeliveryAttemptStarted').map((e) => e.data.attempt)).toEqual([1, 1]);
    expect(run(events, { type: 'CreateDelivery', event: created })).toHaveLength(events.length);
  });

  it('refuses the outcome of a start that another worker made again since (a worker held up past its lease), and records the newer start\'s', () => {
    let events = run([], { type: 'CreateDelivery', event: created });
    events = run(events, { type: 'StartAttempt', data: at('2026-01-01T00:00:00.000Z') });
    events = run(events, { type: 'StartAttempt', data: at('2026-01-01T00:05:00.000Z') });
    const outcome = (start: number, status: number) => ({ type: 'FinishAttempt' as const, data: { attempt: 1, start, result: { kind: 'response' as const, status }, errorExcerpt: null, endedAt: '2026-01-01T00:05:01.000Z', durationMs: 5, secretVersions: [1] } });
    expect(() => run(events, outcome(1, 500))).toThrow(expect.objectContaining({ code: 'CONFLICT', message: expect.stringContaining('started again') }));
    expect(fold(delivery, run(events, outcome(2, 200)))).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('counts the re-runs of one attempt: the third start without an outcome is not made but ends as the worker\'s failure, and counts as a retry', () => {
    let events = run([], { type: 'CreateDelivery', event: created });
    for (const minute of ['00', '05', '10']) events = run(events, { type: 'StartAttempt', data: at(`2026-01-01T00:${minute}:00.000Z`) });
    expect(events.filter((e) => e.type === 'DeliveryAttemptStarted')).toHaveLength(MAX_STARTS_PER_ATTEMPT);
    const ended = delivery.decide({ type: 'StartAttempt', data: { now: '2026-01-01T00:15:00.000Z', retryDelaysMs: [100, 100, 100, 100, 100] } }, fold(delivery, events));
    expect(ended).toEqual([
      {
        type: 'DeliveryAttemptFinished',
        data: expect.objectContaining({ attempt: 1, outcome: 'failed_retry', result: 'internal_error', responseStatus: null, nextAttemptAt: '2026-01-01T00:15:00.100Z', errorExcerpt: expect.stringContaining('started 3 times') }),
      },
    ]);
    // The next attempt is a new number, started once.
    const next = run([...events, ...ended], { type: 'StartAttempt', data: at('2026-01-01T00:16:00.000Z') });
    expect(next.at(-1)).toMatchObject({ type: 'DeliveryAttemptStarted', data: { attempt: 2 } });
    expect(fold(delivery, next)).toMatchObject({ attempts: 2, starts: 1 });
  });

  it('records a worker-side failure as an attempt that is retried, and makes every excerpt storable (a NUL, a cut emoji, 2 MB)', () => {
    let events = run([], { type: 'CreateDelivery', event: created });
    events = run(events, { type: 'StartAttempt', data: at('2026-01-01T00:00:00.000Z') });
    const finish = (errorExcerpt: string, result: AttemptResult = { kind: 'internal_error' }) =>
      delivery.decide({ type: 'FinishAttempt', data: { attempt: 1, start: 1, result, errorExcerpt, endedAt: '2026-01-01T00:00:01.000Z', durationMs: 5, secretVersions: [1] } }, fold(delivery, events))[0]!.data as { outcome: string; errorExcerpt: string; result: string };
    expect(finish('could not record')).toMatchObject({ outcome: 'failed_retry', result: 'internal_error' });
    expect(finish('a\u0000b', { kind: 'response', status: 500 }).errorExcerpt).toBe('a\ufffdb');
    expect(finish(`${'x'.repeat(ERROR_EXCERPT_MAX - 1)}😀`, { kind: 'response', status: 500 }).errorExcerpt).toBe('x'.repeat(ERROR_EXCERPT_MAX - 1));
    expect(finish('y'.repeat(2_000_000), { kind: 'response', status: 500 }).errorExcerpt).toHaveLength(ERROR_EXCERPT_MAX);
  });

  it('dead-letters the sixth failure, and redelivers a dead letter once more under the same id', () => {
    let events = run([], { type: 'CreateDelivery', event: created });
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      events = run(events, { type: 'StartAttempt', data: at(new Date(now).toISOString()) });
      events = run(events, { type: 'FinishAttempt', data: { attempt, start: 1, result: { kind: 'timeout' }, errorExcerpt: 'timed out', endedAt: new Date(now).toISOString(), durationMs: 20_000, secretVersions: [1] } });
      now += 13 * 3600 * 1000;
    }
    expect(fold(delivery, events)).toMatchObject({ status: 'dead_letter', attempts: 6 });
    events = run(events, { type: 'Redeliver', data: at(new Date(now).toISOString()) });
    expect(fold(delivery, events)).toMatchObject({ status: 'pending', deliveryId: 'd1' });
    events = run(events, { type: 'StartAttempt', data: at(new Date(now).toISOString()) });
    expect(events.at(-1)).toMatchObject({ type: 'DeliveryAttemptStarted', data: { attempt: 7 } });
    expect(() => run(run([], { type: 'CreateDelivery', event: created }), { type: 'Redeliver', data: at(new Date(now).toISOString()) })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });

  it('fails for good on a permanent answer', () => {
    let events = run([], { type: 'CreateDelivery', event: created });
    events = run(events, { type: 'StartAttempt', data: at('2026-01-01T00:00:00.000Z') });
    events = run(events, { type: 'FinishAttempt', data: { attempt: 1, start: 1, result: { kind: 'response', status: 302 }, errorExcerpt: null, endedAt: '2026-01-01T00:00:00.100Z', durationMs: 100, secretVersions: [1] } });
    expect(fold(delivery, events)).toMatchObject({ status: 'failed_permanent' });
    expect(events.at(-1)).toMatchObject({ data: { responseStatus: 302, nextAttemptAt: null, secretVersions: [1] } });
  });
});
