import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signInApproval } from '../../src/domain/signIn/signInApproval.ts';
import { normalizeSignInRequestCode, signInRequestCode } from '../../src/domain/signIn/signInRequestCode.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const requestCodeHash = 'b'.repeat(64);
const approved = { type: 'SignInRequestApproved' as const, data: { requestCodeHash, subject: 'alice', clientId: 'client-1', readOnly: false, expiresAt: '2026-11-26T10:10:00.000Z' } };
const completed = { type: 'SignInRequestCompleted' as const, data: { requestCodeHash, subject: 'alice' } };
const spec = deciderSpec(signInApproval);

describe('an assistant sign-in approved in the console', () => {
  it('is completed once, before its page expires, as the member it was approved for', () => {
    spec.given([approved]).when({ type: 'Complete', data: { now: '2026-11-26T10:09:59.999Z' } }).then([completed]);
  });
  it('cannot be completed before it is approved, twice, or once its page expired', () => {
    spec.given([]).when({ type: 'Complete', data: { now: '2026-11-26T10:00:00.000Z' } }).thenRefuses('SIGN_IN_NOT_APPROVED');
    spec.given([approved, completed]).when({ type: 'Complete', data: { now: '2026-11-26T10:01:00.000Z' } }).thenRefuses('SIGN_IN_NOT_APPROVED');
    spec.given([approved]).when({ type: 'Complete', data: { now: '2026-11-26T10:10:00.000Z' } }).thenRefuses('SIGN_IN_NOT_APPROVED');
  });
  it('is approved once: a second approval (perhaps for another member) is refused, the first stands', () => {
    spec.given([]).when({ type: 'Approve', data: approved.data }).then([approved]);
    spec.given([approved]).when({ type: 'Approve', data: { ...approved.data, subject: 'mallory' } }).thenRefuses('CONFLICT');
  });
});

describe('a sign-in request code', () => {
  it('is the same for one sign-in page every time, reads unambiguously, and differs between pages', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), fc.string({ minLength: 1, maxLength: 64 }), (uid, other) => {
        const code = signInRequestCode(uid);
        expect(code).toMatch(/^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/);
        expect(signInRequestCode(uid)).toBe(code);
        if (uid !== other) expect(signInRequestCode(other)).not.toBe(code);
      }),
    );
  });
  it('is read back however it is typed: any case, spaces, with or without its dash', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), fc.boolean(), (uid, spaced) => {
        const code = signInRequestCode(uid);
        const typed = spaced ? ` ${code.toLowerCase().replace('-', ' ')} ` : code.replace('-', '');
        expect(normalizeSignInRequestCode(typed)).toBe(code);
      }),
    );
    for (const wrong of ['', 'ABCD-EFG', 'ABCD-EFGHJ', 'ABCD-EFG0', 'O0O0-1I1L']) expect(normalizeSignInRequestCode(wrong)).toBeNull();
  });
});
