import { describe, it } from 'vitest';
import { IDEMPOTENCY_RETENTION_MS, idempotencyKey } from '../../src/domain/idempotency/idempotencyKey.ts';
import type { IdempotencyKeyEvent } from '../../src/domain/idempotency/idempotencyKeyEvents.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const spec = deciderSpec(idempotencyKey);
const hash = (c: string) => c.repeat(64);
const T0 = '2026-11-23T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const LEASE = 60_000;
const FIRST = '00000000-0000-4000-8000-000000000001';
const SECOND = '00000000-0000-4000-8000-000000000002';

const claim = (claimId: string, now: string, requestHash = hash('a')) =>
  ({ type: 'Claim', data: { projectId: 'p', keyHash: hash('k'), claimId, operation: 'jobs', requestHash, now, leaseMs: LEASE } }) as const;
const claimed = (claimId: string, now: string, requestHash = hash('a')): IdempotencyKeyEvent => ({
  type: 'IdempotencyKeyClaimed',
  data: { projectId: 'p', keyHash: hash('k'), claimId, operation: 'jobs', requestHash, claimedAt: now, leaseUntil: new Date(Date.parse(now) + LEASE).toISOString() },
});
const answered = (claimId: string): IdempotencyKeyEvent => ({
  type: 'IdempotentResponseRecorded',
  data: { projectId: 'p', keyHash: hash('k'), claimId, executionId: 'e1', status: 202, body: { executionId: 'e1' } },
});

describe('Idempotency-Key: Stripe semantics as a decider', () => {
  it('claims a key never used', () => spec.given([]).when(claim(FIRST, T0)).then([claimed(FIRST, T0)]));

  it('refuses the same request while the first is in flight, and another request under the key at any time', () => {
    spec.given([claimed(FIRST, T0)]).when(claim(SECOND, at(1000))).thenRefuses('IDEMPOTENCY_KEY_IN_USE');
    spec.given([claimed(FIRST, T0)]).when(claim(SECOND, at(1000), hash('b'))).thenRefuses('IDEMPOTENCY_KEY_REUSED');
    spec.given([claimed(FIRST, T0), answered(FIRST)]).when(claim(SECOND, at(1000), hash('b'))).thenRefuses('IDEMPOTENCY_KEY_REUSED');
  });

  it('decides nothing for the same request once answered: the caller sends the kept answer again', () =>
    spec.given([claimed(FIRST, T0), answered(FIRST)]).when(claim(SECOND, at(IDEMPOTENCY_RETENTION_MS - 1))).then([]));

  it('lets a retry take a claim whose lease ran out unanswered (its process died)', () =>
    spec.given([claimed(FIRST, T0)]).when(claim(SECOND, at(LEASE))).then([claimed(SECOND, at(LEASE))]));

  it('treats a key as new 24 hours after its first use, whatever the request', () =>
    spec.given([claimed(FIRST, T0), answered(FIRST)]).when(claim(SECOND, at(IDEMPOTENCY_RETENTION_MS), hash('b'))).then([claimed(SECOND, at(IDEMPOTENCY_RETENTION_MS), hash('b'))]));

  it('frees the key of a refused request, so the retry runs anew', () => {
    spec.given([claimed(FIRST, T0)]).when({ type: 'Release', data: { claimId: FIRST } }).then([{ type: 'IdempotencyKeyReleased', data: { projectId: 'p', keyHash: hash('k'), claimId: FIRST } }]);
    spec.given([claimed(FIRST, T0), { type: 'IdempotencyKeyReleased', data: { projectId: 'p', keyHash: hash('k'), claimId: FIRST } }]).when(claim(SECOND, at(1), hash('b'))).then([claimed(SECOND, at(1), hash('b'))]);
  });

  it('writes nothing for a request whose claim was taken over after its lease', () => {
    const takenOver = [claimed(FIRST, T0), claimed(SECOND, at(LEASE))];
    spec.given(takenOver).when({ type: 'Answer', data: { claimId: FIRST, executionId: 'e0', response: { status: 202, body: {} } } }).then([]);
    spec.given(takenOver).when({ type: 'Release', data: { claimId: FIRST } }).then([]);
    spec.given(takenOver).when({ type: 'Answer', data: { claimId: SECOND, executionId: 'e1', response: { status: 202, body: { executionId: 'e1' } } } }).then([answered(SECOND)]);
  });
});
