import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { testCaseSchema } from './testCaseDefinition.ts';

/**
 * A test case's stream `testcase-<id>`: created for a flow, its definition replaced, deleted.
 * TestCaseCreated version 2 added `fromExecutionId`: the recorded run it was made from (version 1
 * cases were written by hand: null).
 */
export const TestCaseCreated = defineEvent(
  'TestCaseCreated',
  2,
  z.object({ testCaseId: z.string(), flowId: z.string(), organizationId: z.string(), projectId: z.string(), definition: testCaseSchema, fromExecutionId: z.string().nullable() }),
);
export const TestCaseUpdated = defineEvent('TestCaseUpdated', 1, z.object({ testCaseId: z.string(), flowId: z.string(), definition: testCaseSchema }));
export const TestCaseDeleted = defineEvent('TestCaseDeleted', 1, z.object({ testCaseId: z.string(), flowId: z.string() }));

export type TestCaseEvent = EventOf<typeof TestCaseCreated> | EventOf<typeof TestCaseUpdated> | EventOf<typeof TestCaseDeleted>;

export const testCaseStream = (testCaseId: string) => `testcase-${testCaseId}`;
