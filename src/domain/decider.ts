/**
 * Emmett-style decider: `decide(command, state) -> events` and `evolve(state, event) -> state`.
 * Pure: ids and time arrive inside commands and event metadata, never read here.
 */
export interface Decider<Command, Event, State> {
  decide: (command: Command, state: State) => Event[];
  evolve: (state: State, event: Event) => State;
  initialState: () => State;
}

export const fold = <Event, State>(decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>, events: Event[]): State =>
  events.reduce(decider.evolve, decider.initialState());
