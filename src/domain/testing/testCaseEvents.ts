import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { testCaseSchema } from './testCaseDefinition.ts';

/** A test case's stream `testcase-<id>`: created for a flow, its definition replaced, deleted. */
export const TestCaseCreated = defineEvent(
  'TestCaseCreated',
  1,
  z.object({ testCaseId: z.string(), flowId: z.string(), organizationId: z.string(), projectId: z.string(), definition: testCaseSchema }),
);
export const TestCaseUpdated = defineEvent('TestCaseUpdated', 1, z.object({ testCaseId: z.string(), flowId: z.string(), definition: testCaseSchema }));
export const TestCaseDeleted = defineEvent('TestCaseDeleted', 1, z.object({ testCaseId: z.string(), flowId: z.string() }));

export type TestCaseEvent = EventOf<typeof TestCaseCreated> | EventOf<typeof TestCaseUpdated> | EventOf<typeof TestCaseDeleted>;

export const testCaseStream = (testCaseId: string) => `testcase-${testCaseId}`;
