import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { testTargetSchema } from './testRunEvents.ts';

/** A suite run of all a flow's test cases against one target, recorded as one event in `testsuite-<id>`. */
export const TestSuiteRunFinished = defineEvent(
  'TestSuiteRunFinished',
  1,
  z.object({
    suiteRunId: z.string(),
    flowId: z.string(),
    target: testTargetSchema,
    results: z.array(z.object({ testCaseId: z.string(), name: z.string(), testRunId: z.string(), passed: z.boolean(), latencyMs: z.number().int() })),
    totals: z.object({ total: z.number().int(), passed: z.number().int(), failed: z.number().int() }),
  }),
);

export type TestSuiteEvent = EventOf<typeof TestSuiteRunFinished>;

export const testSuiteStream = (suiteRunId: string) => `testsuite-${suiteRunId}`;
