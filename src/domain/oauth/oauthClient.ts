import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { OAuthClientEvent } from './oauthClientEvents.ts';

export type OAuthClientState = { revoked: boolean };

export type OAuthClientCommand = { type: 'Revoke'; data: { clientId: string; clientName: string | null; grantsEnded: number; registered: boolean } };

/**
 * A registered client is revoked once. Revoking it again records nothing (the caller finishes
 * deleting what a crash left behind); a client never registered is NOT_FOUND.
 */
export const oauthClient: Decider<OAuthClientCommand, OAuthClientEvent, OAuthClientState> = {
  initialState: () => ({ revoked: false }),
  evolve: () => ({ revoked: true }),
  decide: (command, state) => {
    if (state.revoked) return [];
    if (!command.data.registered) throw new ApiError('NOT_FOUND', `No registered OAuth client ${command.data.clientId} (see seqflow oauth clients)`);
    const { clientId, clientName, grantsEnded } = command.data;
    return [{ type: 'OAuthClientRevoked', data: { clientId, clientName, grantsEnded } }];
  },
};
