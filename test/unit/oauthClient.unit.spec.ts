import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oauthClient } from '../../src/domain/oauth/oauthClient.ts';
import { UNSTORABLE_TEXT } from '../../src/domain/text/storableText.ts';
import { deciderSpec } from '../support/deciderSpec.ts';
import { hostileText } from '../support/hostileText.ts';

const spec = deciderSpec(oauthClient);
const revoke = (registered: boolean) => ({ type: 'Revoke' as const, data: { clientId: 'c1', clientName: 'Cursor', grantsEnded: 2, registered } });
const revoked = { type: 'OAuthClientRevoked' as const, data: { clientId: 'c1', clientName: 'Cursor', grantsEnded: 2 } };

describe('revoking an assistant\'s registration', () => {
  it('records the revocation of a registered client, with how many sign-ins it ends', () => {
    spec.given([]).when(revoke(true)).then([revoked]);
  });
  it('records nothing the second time, so a revocation cut short can be finished', () => {
    spec.given([revoked]).when(revoke(false)).then([]);
  });
  it('refuses a client that was never registered', () => {
    spec.given([]).when(revoke(false)).thenRefuses('NOT_FOUND');
  });
});

describe('signing an assistant in', () => {
  const signIn = { type: 'SignIn' as const, data: { clientId: 'c1', clientName: 'Cursor', subject: 'alice', resources: ['https://seqflow.example/api/v1/mcp/'] } };
  it('records who signed which client in, for which resources, every time', () => {
    const signedIn = { type: 'OAuthClientSignedIn' as const, data: signIn.data };
    spec.given([signedIn]).when(signIn).then([signedIn]);
  });
  it('refuses a revoked client', () => {
    spec.given([revoked]).when(signIn).thenRefuses('FORBIDDEN');
  });
  it('records the name a client gave itself as the log can store it: a NUL or half an emoji replaced, 200 characters at most', () => {
    const named = (clientName: string) => ({ type: 'SignIn' as const, data: { ...signIn.data, clientName } });
    spec.given([]).when(named('Evil\u0000Bot \ud83d')).then([{ type: 'OAuthClientSignedIn', data: { ...signIn.data, clientName: 'Evil\ufffdBot \ufffd' } }]);
    spec.given([]).when(named('x'.repeat(199) + '😀' + 'y'.repeat(500))).then((events) => expect((events[0]!.data as { clientName: string }).clientName).toBe(`${'x'.repeat(199)}…`));
  });
  it('records any name a client gives itself (its metadata document or registration) storable and within 200 characters', () => {
    fc.assert(
      fc.property(hostileText, (clientName) => {
        spec.given([]).when({ type: 'SignIn' as const, data: { ...signIn.data, clientName } }).then((events) => {
          const recorded = (events[0]!.data as { clientName: string }).clientName;
          expect(UNSTORABLE_TEXT.test(recorded)).toBe(false);
          expect(recorded.length).toBeLessThanOrEqual(200);
        });
      }),
      { numRuns: 200 },
    );
  });
  it('still revokes a client signed in before', () => {
    spec.given([{ type: 'OAuthClientSignedIn' as const, data: signIn.data }]).when(revoke(true)).then([revoked]);
  });
});
