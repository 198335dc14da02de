import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { EventOf } from '../events/eventDefinition.ts';
import type { CreditsConsumed } from '../execution/executionEvents.ts';
import type { TestRunEvent } from './testRunEvents.ts';

export type TestRunState = { status: 'none' } | { status: 'running' | 'finished'; testRunId: string; testCaseId: string; executionId: string };

export type TestRunCommand =
  | { type: 'Start'; event: Extract<TestRunEvent, { type: 'TestRunStarted' }> }
  /** Tokens an llm_judge used: charged to the organization like any model call. */
  | { type: 'Charge'; event: EventOf<typeof CreditsConsumed> }
  | { type: 'Finish'; event: Extract<TestRunEvent, { type: 'TestRunFinished' }> };

/** A test run starts once and finishes once, with the results of the run it started. */
export const testRun: Decider<TestRunCommand, TestRunEvent | EventOf<typeof CreditsConsumed>, TestRunState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) =>
    event.type === 'TestRunStarted'
      ? { status: 'running', testRunId: event.data.testRunId, testCaseId: event.data.testCaseId, executionId: event.data.executionId }
      : event.type === 'TestRunFinished' && state.status !== 'none'
        ? { ...state, status: 'finished' }
        : state,
  decide: (command, state) => {
    if (command.type === 'Start') {
      if (state.status !== 'none') throw new ApiError('CONFLICT', `Test run ${state.testRunId} already started`);
      return [command.event];
    }
    if (state.status !== 'running' || state.executionId !== command.event.data.executionId) throw new ApiError('CONFLICT', 'This test run is not running, or not this run');
    return [command.event];
  },
};
