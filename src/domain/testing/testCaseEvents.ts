import { z } from 'zod';
import { operational } from '../privacy/dataClass.ts';
import { anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { testCaseSchema } from './testCaseDefinition.ts';

/**
 * A test case's stream `testcase-<id>`: created for a flow, its definition replaced, deleted.
 * TestCaseCreated version 2 added `fromExecutionId`: the recorded run it was made from (version 1
 * cases were written by hand: null).
 */
/**
 * A test case keeps its own copy of its input and assertions: written by the flow's team, or copied
 * from a recorded run on purpose. It is the one documented exception to a run's erasure (an erasure
 * answer lists the cases made from the run, for the operator to delete: docs/operations.md).
 */
const caseDefinition = () => operational(testCaseSchema, "a test case's own copy of its input and assertions, kept apart from any run (the documented exception to erasure: docs/operations.md)");

export const TestCaseCreated = defineEvent(
  'TestCaseCreated',
  2,
  z.object({ testCaseId: anId(), flowId: anId(), organizationId: anId(), projectId: anId(), definition: caseDefinition(), fromExecutionId: anId().nullable() }),
);
export const TestCaseUpdated = defineEvent('TestCaseUpdated', 1, z.object({ testCaseId: anId(), flowId: anId(), definition: caseDefinition() }));
export const TestCaseDeleted = defineEvent('TestCaseDeleted', 1, z.object({ testCaseId: anId(), flowId: anId() }));

export type TestCaseEvent = EventOf<typeof TestCaseCreated> | EventOf<typeof TestCaseUpdated> | EventOf<typeof TestCaseDeleted>;

export const testCaseStream = (testCaseId: string) => `testcase-${testCaseId}`;
