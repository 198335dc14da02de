import { z } from 'zod';
import { operational, personal } from '../privacy/dataClass.ts';
import { aCode, aName, anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { storedStepSchema } from '../flows/flowDefinition.ts';

/**
 * A test run's stream `testrun-<id>`: started against a target (a published version, or a snapshot
 * of the draft, so the run can be reproduced), then finished with every assertion's result.
 */
export const testTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('version'), versionId: anId(), number: z.number().int().min(1) }),
  z.object({ kind: z.literal('draft'), steps: operational(z.array(storedStepSchema), "a snapshot of the flow's draft, written by its authors: configuration") }),
]);
export type TestTarget = z.infer<typeof testTargetSchema>;

export const assertionResultSchema = z.object({
  type: operational(z.string(), "the assertion's type, from the service's vocabulary"),
  /** The block the assertion checked, when it named one (absent: the run's result, and in results recorded before). */
  step: aName().optional(),
  passed: z.boolean(),
  score: z.number().min(0).max(1),
  reason: z.string(),
  /** llm_judge only: which model judged, the hash of the prompt it was given, and its rationale. */
  judge: z.object({ model: z.string(), promptHash: z.string(), rationale: z.string() }).optional(),
});
export type RecordedAssertionResult = z.infer<typeof assertionResultSchema>;

export const TestRunStarted = defineEvent(
  'TestRunStarted',
  1,
  z.object({ testRunId: anId(), testCaseId: anId(), flowId: anId(), organizationId: anId(), executionId: anId(), target: testTargetSchema }),
);
/** Version 2 added `error`: why the run itself failed to run (the engine threw), null when it ran. */
export const TestRunFinished = defineEvent(
  'TestRunFinished',
  2,
  z.object({
    testRunId: anId(),
    testCaseId: anId(),
    executionId: anId(),
    runStatus: z.enum(['completed', 'failed', 'paused']),
    passed: z.boolean(),
    /** Each assertion's reason and a judge's rationale can quote the run's output: sealed under the test run's key. */
    results: personal(z.array(assertionResultSchema), []),
    latencyMs: z.number().int(),
    tokens: z.number().int(),
    error: z.object({ code: aCode(), message: operational(z.string(), "the service's words for why the test run failed (a failure's message, never its detail)") }).nullable(),
  }),
);

export type TestRunEvent = EventOf<typeof TestRunStarted> | EventOf<typeof TestRunFinished>;

export const testRunStream = (testRunId: string) => `testrun-${testRunId}`;
