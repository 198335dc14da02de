import { describe, it } from 'vitest';
import { loginCode } from '../../src/domain/signIn/loginCode.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const codeHash = 'a'.repeat(64);
const issued = { type: 'LoginCodeIssued' as const, data: { codeHash, subject: 'alice', expiresAt: '2026-11-22T10:10:00.000Z' } };
const redeemed = { type: 'LoginCodeRedeemed' as const, data: { codeHash, subject: 'alice' } };
const spec = deciderSpec(loginCode);

describe('a one-time sign-in code', () => {
  it('is redeemed once before it expires, naming its subject', () => {
    spec.given([issued]).when({ type: 'RedeemLoginCode', data: { now: '2026-11-22T10:09:59.999Z' } }).then([redeemed]);
  });
  it('is refused the second time', () => {
    spec.given([issued, redeemed]).when({ type: 'RedeemLoginCode', data: { now: '2026-11-22T10:01:00.000Z' } }).thenRefuses('LOGIN_CODE_INVALID');
  });
  it('is refused at and after its expiry', () => {
    spec.given([issued]).when({ type: 'RedeemLoginCode', data: { now: '2026-11-22T10:10:00.000Z' } }).thenRefuses('LOGIN_CODE_INVALID');
  });
  it('is refused when it was never issued, with the same code as a used one', () => {
    spec.given([]).when({ type: 'RedeemLoginCode', data: { now: '2026-11-22T10:00:00.000Z' } }).thenRefuses('LOGIN_CODE_INVALID');
  });
  it('is issued once', () => {
    spec.given([]).when({ type: 'IssueLoginCode', data: issued.data }).then([issued]);
    spec.given([issued]).when({ type: 'IssueLoginCode', data: issued.data }).thenRefuses('CONFLICT');
  });
});
