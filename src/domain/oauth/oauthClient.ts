import { storableExcerpt } from '../text/storableText.ts';
import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { OAuthClientEvent, SIGN_IN_END_REASONS } from './oauthClientEvents.ts';

export type OAuthClientState = { revoked: boolean };

export type OAuthClientCommand =
  | { type: 'Revoke'; data: { clientId: string; clientName: string | null; grantsEnded: number; registered: boolean } }
  | { type: 'SignIn'; data: { clientId: string; clientName: string | null; subject: string; resources: string[] } }
  | { type: 'EndSignIn'; data: { clientId: string; subject: string | null; reason: (typeof SIGN_IN_END_REASONS)[number] } };

/**
 * A client is signed in by members any number of times until it is revoked, and revoked once; each
 * sign-in that ends otherwise (a reused refresh token or code, the client's own revocation) says why.
 * Revoking it again records nothing (the caller finishes deleting what a crash left behind); a
 * client never registered is NOT_FOUND; a revoked client cannot be signed in (FORBIDDEN).
 */
export const oauthClient: Decider<OAuthClientCommand, OAuthClientEvent, OAuthClientState> = {
  initialState: () => ({ revoked: false }),
  evolve: (state, event) => (event.type === 'OAuthClientRevoked' ? { revoked: true } : state),
  decide: (command, state) => {
    // A sign-in that ended is recorded whatever the client's state: the log says why someone had to sign in again.
    if (command.type === 'EndSignIn') return [{ type: 'OAuthSignInEnded', data: command.data }];
    if (command.type === 'SignIn') {
      if (state.revoked) throw new ApiError('FORBIDDEN', `The OAuth client ${command.data.clientId} was revoked`);
      return [{ type: 'OAuthClientSignedIn', data: { ...command.data, clientName: nameOf(command.data.clientName) } }];
    }
    if (state.revoked) return [];
    if (!command.data.registered) throw new ApiError('NOT_FOUND', `No registered OAuth client ${command.data.clientId} (see seqflow oauth clients)`);
    const { clientId, clientName, grantsEnded } = command.data;
    return [{ type: 'OAuthClientRevoked', data: { clientId, clientName: nameOf(clientName), grantsEnded } }];
  },
};

/** The name a client gave itself at registration, as the log can store it (it is whatever the client sent). */
const CLIENT_NAME_MAX = 200;
const nameOf = (name: string | null) => (name === null ? null : storableExcerpt(name, CLIENT_NAME_MAX, () => '…'));
