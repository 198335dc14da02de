import { describe, expect, it } from 'vitest';
import { linkSessionStands, operators } from '../../src/domain/operators/operators.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const spec = deciderSpec(operators);
const granted = { type: 'OperatorGranted' as const, data: { subject: 'olga' } };
const ended = { type: 'ConsoleLinkSessionsEnded' as const, data: { before: '2026-11-24T08:00:00.000Z' } };
const stateAfter = (events: (typeof granted | typeof ended)[]) => events.reduce(operators.evolve, operators.initialState());

describe('the operators: who holds the role, and which console link sessions stand', () => {
  it('grants a subject once and revokes a holder', () => {
    spec.given([]).when({ type: 'Grant', data: { subject: 'olga' } }).then([granted]);
    spec.given([granted]).when({ type: 'Grant', data: { subject: 'olga' } }).then([]);
    spec.given([granted]).when({ type: 'Revoke', data: { subject: 'olga' } }).then([{ type: 'OperatorRevoked', data: { subject: 'olga' } }]);
  });

  it('ends link sessions at the instant given, every time it is asked', () => {
    spec.given([ended]).when({ type: 'EndLinkSessions', data: { now: '2026-11-24T09:00:00.000Z' } }).then([{ type: 'ConsoleLinkSessionsEnded', data: { before: '2026-11-24T09:00:00.000Z' } }]);
  });

  it('lets a link session stand only if it opened after the last end', () => {
    const at = Date.parse(ended.data.before);
    expect(linkSessionStands(stateAfter([granted]), at)).toBe(true);
    expect(linkSessionStands(stateAfter([granted, ended]), at)).toBe(false);
    expect(linkSessionStands(stateAfter([granted, ended]), at + 1)).toBe(true);
    // Ending sessions leaves the role alone.
    expect(stateAfter([granted, ended]).subjects.has('olga')).toBe(true);
  });
});
