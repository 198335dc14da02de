import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { ExecutionEvent } from './executionEvents.ts';

/**
 * The life of one run. The engine proposes each fact as a command; the decider refuses anything
 * after the run ended, so a run's stream always reads requested, steps..., then one terminal event.
 */
export type ExecutionState =
  | { status: 'none' }
  | { status: 'running' | 'completed' | 'failed'; executionId: string; organizationId: string; completedSteps: number };

export type ExecutionCommand =
  | { type: 'Record'; event: ExecutionEvent };

export const execution: Decider<ExecutionCommand, ExecutionEvent, ExecutionState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'ExecutionRequested':
        return { status: 'running', executionId: event.data.executionId, organizationId: event.data.organizationId, completedSteps: 0 };
      case 'ExecutionStepCompleted':
        return state.status === 'none' ? state : { ...state, completedSteps: state.completedSteps + 1 };
      case 'ExecutionFailed':
        return state.status === 'none' ? state : { ...state, status: 'failed' };
      case 'ExecutionCompleted':
        return state.status === 'none' ? state : { ...state, status: 'completed' };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    const { event } = command;
    if (event.type === 'ExecutionRequested') {
      if (state.status !== 'none') throw new ApiError('CONFLICT', `Execution ${state.executionId} already exists`);
      return [event];
    }
    if (state.status === 'none') throw new ApiError('EXECUTION_ID_INVALID', 'No such execution');
    if (state.status !== 'running') throw new ApiError('CONFLICT', `Execution ${state.executionId} has already ${state.status}`);
    return [event];
  },
};
