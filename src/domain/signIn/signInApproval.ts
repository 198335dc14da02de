import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { SignInApprovalEvent } from './signInApprovalEvents.ts';

export type SignInApprovalState =
  | { status: 'pending' }
  | { status: 'approved' | 'completed'; requestCodeHash: string; subject: string; clientId: string; expiresAt: string };

export type SignInApprovalCommand =
  | { type: 'Approve'; data: { requestCodeHash: string; subject: string; clientId: string; readOnly: boolean; expiresAt: string } }
  /** `now` is passed in: deciding reads no clock. */
  | { type: 'Complete'; data: { now: string } };

/**
 * An assistant's sign-in approved from the console, instead of with a one-time code typed on its
 * page. Approved once (a second approval, perhaps for another member, is refused: the first one
 * stands); completed at most once, before it expires, by the page of the request it names.
 * Crash semantics: each step is one append; an approval whose page never continues expires unused.
 */
export const signInApproval: Decider<SignInApprovalCommand, SignInApprovalEvent, SignInApprovalState> = {
  initialState: () => ({ status: 'pending' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'SignInRequestApproved':
        return { status: 'approved', requestCodeHash: event.data.requestCodeHash, subject: event.data.subject, clientId: event.data.clientId, expiresAt: event.data.expiresAt };
      case 'SignInRequestCompleted':
        return state.status === 'pending' ? state : { ...state, status: 'completed' };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'Approve':
        if (state.status !== 'pending') throw new ApiError('CONFLICT', `This sign-in request was already approved, for ${state.subject}`);
        return [{ type: 'SignInRequestApproved', data: command.data }];
      case 'Complete':
        if (state.status !== 'approved' || Date.parse(command.data.now) >= Date.parse(state.expiresAt)) {
          throw new ApiError('SIGN_IN_NOT_APPROVED', 'This sign-in has not been approved (or its approval was used or has expired): approve its request code in the console, then continue');
        }
        return [{ type: 'SignInRequestCompleted', data: { requestCodeHash: state.requestCodeHash, subject: state.subject } }];
    }
  },
};
