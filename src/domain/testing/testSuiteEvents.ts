import { z } from 'zod';
import { aName, anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { testTargetSchema } from './testRunEvents.ts';

/** A suite run of all a flow's test cases against one target, recorded as one event in `testsuite-<id>`. */
export const TestSuiteRunFinished = defineEvent(
  'TestSuiteRunFinished',
  1,
  z.object({
    suiteRunId: anId(),
    flowId: anId(),
    target: testTargetSchema,
    results: z.array(z.object({ testCaseId: anId(), name: aName(), testRunId: anId(), passed: z.boolean(), latencyMs: z.number().int() })),
    totals: z.object({ total: z.number().int(), passed: z.number().int(), failed: z.number().int() }),
  }),
);

export type TestSuiteEvent = EventOf<typeof TestSuiteRunFinished>;

export const testSuiteStream = (suiteRunId: string) => `testsuite-${suiteRunId}`;
