import { describe, it } from 'vitest';
import { signingKeys } from '../../src/domain/oauth/signingKeys.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const spec = deciderSpec(signingKeys);
const publicKey = { kty: 'EC' as const, crv: 'P-256' as const, x: 'x', y: 'y' };
const now = new Date('2026-11-24T12:00:00Z');
const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
const rotate = (stored: { kid: string; createdAt: Date }[]) => ({ type: 'Rotate' as const, data: { kid: 'new', publicKey, stored, now } });
const rotated = (retiredKids: string[]) => ({ type: 'OAuthSigningKeyRotated' as const, data: { kid: 'new', publicKey, retiredKids } });

describe('rotating the embedded authorization server\'s signing key', () => {
  it('records the new key and retires none while every older key may have signed an unexpired token', () => {
    spec.given([]).when(rotate([{ kid: 'a', createdAt: minutesAgo(10_000) }])).then([rotated([])]);
  });
  it('keeps a key for an hour and five minutes after the next one replaced it, then retires it', () => {
    const stored = [
      { kid: 'c', createdAt: minutesAgo(30) },
      { kid: 'b', createdAt: minutesAgo(70) },
      { kid: 'a', createdAt: minutesAgo(200) },
    ];
    // `b` stopped signing 30 minutes ago (its tokens may live on); `a` stopped 70 minutes ago.
    spec.given([]).when(rotate(stored)).then([rotated(['a'])]);
  });
  it('never retires the key signing until now, however old', () => {
    spec.given([rotated([])]).when(rotate([{ kid: 'b', createdAt: minutesAgo(100_000) }, { kid: 'a', createdAt: minutesAgo(200_000) }])).then([rotated(['a'])]);
  });
});
