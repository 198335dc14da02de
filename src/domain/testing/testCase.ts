import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { TestCaseDefinition } from './testCaseDefinition.ts';
import type { TestCaseEvent } from './testCaseEvents.ts';

export type TestCaseState =
  | { status: 'none' }
  | { status: 'active' | 'deleted'; testCaseId: string; flowId: string; organizationId: string; projectId: string; definition: TestCaseDefinition; fromExecutionId: string | null };

export type TestCaseCommand =
  | { type: 'CreateTestCase'; data: { testCaseId: string; flowId: string; organizationId: string; projectId: string; definition: TestCaseDefinition; fromExecutionId: string | null } }
  | { type: 'UpdateTestCase'; data: { definition: TestCaseDefinition } }
  | { type: 'DeleteTestCase' };

const requireActive = (state: TestCaseState) => {
  if (state.status !== 'active') throw new ApiError('TEST_CASE_NOT_FOUND', 'No such test case');
  return state;
};

export const testCase: Decider<TestCaseCommand, TestCaseEvent, TestCaseState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'TestCaseCreated':
        return { status: 'active', ...event.data };
      case 'TestCaseUpdated':
        return state.status === 'none' ? state : { ...state, definition: event.data.definition };
      case 'TestCaseDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateTestCase':
        if (state.status !== 'none') throw new ApiError('CONFLICT', `Test case ${state.testCaseId} already exists`);
        return [{ type: 'TestCaseCreated', data: command.data }];
      case 'UpdateTestCase': {
        const current = requireActive(state);
        return [{ type: 'TestCaseUpdated', data: { testCaseId: current.testCaseId, flowId: current.flowId, definition: command.data.definition } }];
      }
      case 'DeleteTestCase': {
        const current = requireActive(state);
        return [{ type: 'TestCaseDeleted', data: { testCaseId: current.testCaseId, flowId: current.flowId } }];
      }
    }
  },
};
