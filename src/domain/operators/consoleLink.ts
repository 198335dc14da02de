import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { ConsoleLinkEvent } from './consoleLinkEvents.ts';

export type ConsoleLinkState = { status: 'none' } | { status: 'issued' | 'redeemed'; tokenHash: string; operator: string; expiresAt: string };

export type ConsoleLinkCommand = { type: 'Issue'; data: { tokenHash: string; operator: string; expiresAt: string } } | { type: 'Redeem'; data: { now: string } };

/** A console sign-in link: used at most once, before it expires; unknown, used and expired are refused alike. */
export const consoleLink: Decider<ConsoleLinkCommand, ConsoleLinkEvent, ConsoleLinkState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => (event.type === 'ConsoleLinkIssued' ? { status: 'issued', ...event.data } : state.status === 'none' ? state : { ...state, status: 'redeemed' }),
  decide: (command, state) => {
    if (command.type === 'Issue') {
      if (state.status !== 'none') throw new ApiError('CONFLICT', 'This link was issued already');
      return [{ type: 'ConsoleLinkIssued', data: command.data }];
    }
    if (state.status !== 'issued' || Date.parse(command.data.now) >= Date.parse(state.expiresAt)) {
      throw new ApiError('UNAUTHENTICATED', 'This console link is unknown, used or expired: print a new one with `seqflow console link`');
    }
    return [{ type: 'ConsoleLinkRedeemed', data: { tokenHash: state.tokenHash, operator: state.operator } }];
  },
};
