import type { Decider } from '../decider.ts';
import type { OperatorEvent } from './operatorEvents.ts';

export type OperatorsState = { subjects: ReadonlySet<string> };

export type OperatorsCommand = { type: 'Grant'; data: { subject: string } } | { type: 'Revoke'; data: { subject: string } };

/** Who holds the operator role. Granting a holder or revoking a non-holder changes nothing (no event). */
export const operators: Decider<OperatorsCommand, OperatorEvent, OperatorsState> = {
  initialState: () => ({ subjects: new Set() }),
  evolve: (state, event) => {
    const subjects = new Set(state.subjects);
    if (event.type === 'OperatorGranted') subjects.add(event.data.subject);
    else subjects.delete(event.data.subject);
    return { subjects };
  },
  decide: (command, state) => {
    const holds = state.subjects.has(command.data.subject);
    if (command.type === 'Grant') return holds ? [] : [{ type: 'OperatorGranted', data: command.data }];
    return holds ? [{ type: 'OperatorRevoked', data: command.data }] : [];
  },
};
