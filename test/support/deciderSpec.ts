import { expect } from 'vitest';
import { type Decider, fold } from '../../src/domain/decider.ts';

/**
 * Given events / When a command / Then events (or an error code): a decider test reads as the rule
 * it checks.
 */
export function deciderSpec<Command, Event, State>(decider: Decider<Command, Event, State>) {
  return {
    given: (events: Event[]) => ({
      when: (command: Command) => {
        const decide = () => decider.decide(command, fold(decider, events));
        return {
          then: (expected: Event[] | ((events: Event[]) => void)) => {
            const produced = decide();
            if (typeof expected === 'function') expected(produced);
            else expect(produced).toEqual(expected);
            return produced;
          },
          thenRefuses: (code: string) => expect(decide).toThrow(expect.objectContaining({ code })),
        };
      },
    }),
  };
}
