import { randomUUID } from 'node:crypto';
import { type AuthoringScope, requireFlow } from '../authoring/flowAuthoring.ts';
import type { CommandMetadata } from '../commands/commandHandler.ts';
import { testSuiteStream } from '../domain/testing/testSuiteEvents.ts';
import { encodeEvent } from '../domain/domainEvent.ts';
import { appendWithRetry } from '../eventstore/streams.ts';
import { commandsOf } from '../execution/engineDependencies.ts';
import { listTestCases } from './testCases.ts';
import { type StartedTestRun, type TestEngine, type TestRunSummary, runTestCase } from './testRunner.ts';
import { resolveTarget } from './testTarget.ts';

/** Test cases of one suite run at once. */
const SUITE_CONCURRENCY = 4;

export interface SuiteRunSummary {
  suiteRunId: string;
  flowId: string;
  flowSlug: string;
  target: { kind: 'version'; number: number } | { kind: 'draft' };
  totals: { total: number; passed: number; failed: number };
  runs: TestRunSummary[];
}

/**
 * Runs every test case of a flow against one target (resolved once: the same version, or the same
 * draft snapshot, for all), a few at a time, and records the suite as one event with its results.
 */
export async function runSuite(engine: TestEngine, scope: AuthoringScope, input: { flowId: string; version?: number; draft?: boolean; onStarted?: (run: StartedTestRun) => void; onFinished?: (run: TestRunSummary) => void }, metadata: CommandMetadata): Promise<SuiteRunSummary> {
  const flow = await requireFlow(commandsOf(engine), scope, input.flowId);
  const suiteRunId = randomUUID();
  const resolved = resolveTarget(flow, input, suiteRunId);
  const cases = await listTestCases(engine.db, scope, flow.flowId);
  const runs: TestRunSummary[] = new Array(cases.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(SUITE_CONCURRENCY, cases.length) }, async () => {
      while (next < cases.length) {
        const index = next++;
        runs[index] = await runTestCase(engine, scope, { testCaseId: cases[index]!.testCaseId, resolved, onStarted: input.onStarted }, metadata);
        input.onFinished?.(runs[index]);
      }
    }),
  );
  const passed = runs.filter((r) => r.passed).length;
  const totals = { total: runs.length, passed, failed: runs.length - passed };
  const event = encodeEvent({
    type: 'TestSuiteRunFinished',
    data: { suiteRunId, flowId: flow.flowId, target: resolved.target, results: runs.map((r) => ({ testCaseId: r.testCaseId, name: r.name, testRunId: r.testRunId, passed: r.passed, latencyMs: r.latencyMs })), totals },
  });
  await appendWithRetry(engine.eventStore, testSuiteStream(suiteRunId), [{ id: randomUUID(), ...event, metadata: { correlationId: suiteRunId, causationId: null, principal: metadata.principal, occurredAt: engine.now().toISOString() } }], 'no_stream');
  return { suiteRunId, flowId: flow.flowId, flowSlug: flow.slug, target: resolved.target.kind === 'version' ? { kind: 'version', number: resolved.target.number } : { kind: 'draft' }, totals, runs };
}
