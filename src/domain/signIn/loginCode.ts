import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { LoginCodeEvent } from './loginCodeEvents.ts';

export type LoginCodeState = { status: 'none' } | { status: 'issued' | 'redeemed'; codeHash: string; subject: string; expiresAt: string };

export type LoginCodeCommand =
  | { type: 'IssueLoginCode'; data: { codeHash: string; subject: string; expiresAt: string } }
  /** `now` is passed in: deciding reads no clock. */
  | { type: 'RedeemLoginCode'; data: { now: string } };

/**
 * A one-time sign-in code: issued for a subject with an expiry, redeemed at most once before it.
 * Every refusal says the same thing (unknown, used or expired alike), so a guesser learns nothing.
 */
export const loginCode: Decider<LoginCodeCommand, LoginCodeEvent, LoginCodeState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'LoginCodeIssued':
        return { status: 'issued', ...event.data };
      case 'LoginCodeRedeemed':
        return state.status === 'none' ? state : { ...state, status: 'redeemed' };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueLoginCode':
        if (state.status !== 'none') throw new ApiError('CONFLICT', 'This code was issued already');
        return [{ type: 'LoginCodeIssued', data: command.data }];
      case 'RedeemLoginCode':
        if (state.status !== 'issued' || Date.parse(command.data.now) >= Date.parse(state.expiresAt)) {
          throw new ApiError('LOGIN_CODE_INVALID', 'This sign-in code is unknown, used or expired: ask for a new one (seqflow login-code --user <subject>)');
        }
        return [{ type: 'LoginCodeRedeemed', data: { codeHash: state.codeHash, subject: state.subject } }];
    }
  },
};
