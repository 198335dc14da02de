import type { Decider } from '../decider.ts';
import type { OperatorEvent } from './operatorEvents.ts';

/**
 * `linkSessionsEndedBefore`: console sessions opened with a one-time link at or before this instant
 * are over (null: none ended yet).
 */
export type OperatorsState = { subjects: ReadonlySet<string>; linkSessionsEndedBefore: string | null };

export type OperatorsCommand =
  | { type: 'Grant'; data: { subject: string } }
  | { type: 'Revoke'; data: { subject: string } }
  | { type: 'EndLinkSessions'; data: { now: string } };

/**
 * Who holds the operator role, and which console link sessions still stand. Granting a holder or
 * revoking a non-holder changes nothing (no event); ending link sessions always records the instant.
 */
export const operators: Decider<OperatorsCommand, OperatorEvent, OperatorsState> = {
  initialState: () => ({ subjects: new Set(), linkSessionsEndedBefore: null }),
  evolve: (state, event) => {
    if (event.type === 'ConsoleLinkSessionsEnded') return { ...state, linkSessionsEndedBefore: event.data.before };
    const subjects = new Set(state.subjects);
    if (event.type === 'OperatorGranted') subjects.add(event.data.subject);
    else subjects.delete(event.data.subject);
    return { ...state, subjects };
  },
  decide: (command, state) => {
    if (command.type === 'EndLinkSessions') return [{ type: 'ConsoleLinkSessionsEnded', data: { before: command.data.now } }];
    const holds = state.subjects.has(command.data.subject);
    if (command.type === 'Grant') return holds ? [] : [{ type: 'OperatorGranted', data: command.data }];
    return holds ? [{ type: 'OperatorRevoked', data: command.data }] : [];
  },
};

/** Whether a link session opened at `openedAtMs` still stands. */
export const linkSessionStands = (state: OperatorsState, openedAtMs: number) => state.linkSessionsEndedBefore === null || openedAtMs > Date.parse(state.linkSessionsEndedBefore);
