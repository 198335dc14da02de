import { describe, it } from 'vitest';
import { oauthClient } from '../../src/domain/oauth/oauthClient.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

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
