import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { EventOf } from '../events/eventDefinition.ts';
import type { CreditsConsumed } from '../execution/executionEvents.ts';
import type { BacktestEvent, BacktestRunCompared, BacktestRunSkipped, BacktestStarted, BacktestSummary, PairOutcome } from './backtestEvents.ts';

type Started = EventOf<typeof BacktestStarted>['data'];
type Compared = EventOf<typeof BacktestRunCompared>['data'];
type Skipped = EventOf<typeof BacktestRunSkipped>['data'];

/** How a chosen run came out: compared (a pair outcome), or skipped because its data was erased. */
export type RunOutcome = PairOutcome | 'erased';

export type BacktestState =
  | { status: 'none' }
  | { status: 'running' | 'finished' | 'interrupted'; started: Started; outcomes: ReadonlyMap<string, RunOutcome> };

export type BacktestCommand =
  | { type: 'Start'; data: Started }
  | { type: 'Compare'; data: Compared }
  /** The run's data was erased before its comparison was recorded: it is not compared (a later Compare is refused). */
  | { type: 'Skip'; data: Skipped }
  /** Tokens the judge used on a pair: charged to the organization like any model call. */
  | { type: 'Charge'; event: EventOf<typeof CreditsConsumed> }
  /** `interrupted`: the sweep ends a backtest whose process died; `finished` needs every run compared or skipped. */
  | { type: 'Finish'; status: 'finished' | 'interrupted' };

/**
 * A backtest's life: started with the runs it replays, one comparison per chosen run (a second one,
 * or one for a run it did not choose, is refused), then finished once. A run erased before its
 * comparison is skipped instead, and a comparison after that is refused: it would quote a run whose
 * data is gone. A crash between comparisons loses nothing recorded: the sweep finishes it
 * `interrupted`, counting the rest as not run.
 */
export const backtest: Decider<BacktestCommand, BacktestEvent | EventOf<typeof CreditsConsumed>, BacktestState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'BacktestStarted':
        return { status: 'running', started: event.data, outcomes: new Map() };
      case 'BacktestRunCompared':
        return state.status === 'none' ? state : { ...state, outcomes: new Map(state.outcomes).set(event.data.executionId, event.data.outcome) };
      case 'BacktestRunSkipped':
        return state.status === 'none' ? state : { ...state, outcomes: new Map(state.outcomes).set(event.data.executionId, 'erased') };
      case 'BacktestFinished':
        return state.status === 'none' ? state : { ...state, status: event.data.status };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    if (command.type === 'Start') {
      if (state.status !== 'none') throw new ApiError('CONFLICT', `Backtest ${command.data.backtestId} already exists`);
      return [{ type: 'BacktestStarted', data: command.data }];
    }
    if (state.status === 'none') throw new ApiError('BACKTEST_NOT_FOUND', 'No such backtest');
    if (state.status !== 'running') throw new ApiError('CONFLICT', `Backtest ${state.started.backtestId} has ${state.status}`);
    if (command.type === 'Charge') return [command.event];
    if (command.type === 'Compare' || command.type === 'Skip') {
      const chosen = state.started.runs.find((r) => r.executionId === command.data.executionId);
      if (!chosen || chosen.backtestExecutionId !== command.data.backtestExecutionId) throw new ApiError('CONFLICT', `Run ${command.data.executionId} is not one this backtest replays`);
      const known = state.outcomes.get(command.data.executionId);
      if (command.type === 'Compare' && known === 'erased') throw new ApiError('CONFLICT', `Run ${command.data.executionId} was erased: its comparison is refused`);
      if (known !== undefined) return []; // compared or skipped already (a retried append); a comparison made before the erasure stands, its excerpts cleared
      return command.type === 'Compare' ? [{ type: 'BacktestRunCompared', data: command.data }] : [{ type: 'BacktestRunSkipped', data: command.data }];
    }
    if (command.status === 'finished' && state.outcomes.size < state.started.runs.length) {
      throw new ApiError('CONFLICT', `Backtest ${state.started.backtestId} has compared ${state.outcomes.size} of ${state.started.runs.length} runs`);
    }
    const runs = state.started.runs.map((r) => ({ ...r, outcome: state.outcomes.get(r.executionId) ?? ('not_run' as const) }));
    return [{ type: 'BacktestFinished', data: { backtestId: state.started.backtestId, status: command.status, summary: summarize(runs.map((r) => r.outcome)), runs } }];
  },
};

export function summarize(outcomes: readonly (RunOutcome | 'not_run')[]): BacktestSummary {
  const count = (o: RunOutcome | 'not_run') => outcomes.filter((x) => x === o).length;
  return { total: outcomes.length, same: count('same'), different: count('different'), failed: count('failed'), notRun: count('not_run'), erased: count('erased') };
}
