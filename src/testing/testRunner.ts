import { randomUUID } from 'node:crypto';
import { ApiError } from '../domain/errors/apiError.ts';
import { type AuthoringScope, requireFlow } from '../authoring/flowAuthoring.ts';
import { type CommandMetadata, handleCommand } from '../commands/commandHandler.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import type { FlowState } from '../domain/flows/flow.ts';
import { evaluateAssertion, stepObserved } from '../domain/testing/assertions.ts';
import type { TestCaseDefinition } from '../domain/testing/testCaseDefinition.ts';
import { type TestRunCommand, testRun } from '../domain/testing/testRun.ts';
import { type RecordedAssertionResult, testRunStream } from '../domain/testing/testRunEvents.ts';
import { type EngineDependencies, commandsOf } from '../execution/engineDependencies.ts';
import { runWithAnsweredTools } from '../execution/answeredToolsRun.ts';
import { runRequest } from '../execution/runRequest.ts';
import { readRunHistory } from '../execution/runHistoryOf.ts';
import { checkAttachments } from '../execution/attachmentGate.ts';
import type { ModelRegistry } from '../execution/modelRegistry.ts';
import type { AddressGuard } from '../outbound/addressGuard.ts';

import { judge } from './llmJudge.ts';
import { observeRun } from './runObservation.ts';
import { requireTestCase } from './testCases.ts';
import { type ResolvedTarget, resolveTarget, runOnTarget, stepsOfTarget } from './testTarget.ts';
import { answerFromScript, scriptedTools } from './scriptedToolResults.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';

export interface StartedTestRun {
  testRunId: string;
  testCaseId: string;
  executionId: string;
  name: string;
}

export interface TestRunSummary {
  testRunId: string;
  testCaseId: string;
  name: string;
  executionId: string;
  target: { kind: 'version'; number: number } | { kind: 'draft' };
  runStatus: 'completed' | 'failed' | 'paused';
  passed: boolean;
  results: RecordedAssertionResult[];
  latencyMs: number;
  tokens: number;
  /** Why the run failed to run at all (the engine threw), or null. */
  error: { code: string; message: string } | null;
  /** The run's result (null unless it completed). */
  output: unknown;
  /** Where its TestRunFinished is in the log: the promotion gate sees the result once the read models pass it. */
  position: number;
}

/**
 * The engine a test runs on, with the checks a caller's run passes first (the outbound guard, the
 * model registry), and where runs' data is sealed (`runDataKeys`), so a backtest can erase a replay
 * whose original was erased meanwhile.
 */
export type TestEngine = EngineDependencies & { guard: AddressGuard; registry: ModelRegistry; runDataKeys?: RunDataKeys };

/**
 * Runs one test case: an ordinary run of the engine (its own `execution-<id>` stream, mode `test`,
 * never a webhook, credits charged), pinned at its start to a target recorded in `testrun-<id>`.
 * Tool calls are answered from the case's scripted results. When the run ends, every assertion is
 * evaluated and the results are recorded (TestRunFinished).
 */
export async function runTestCase(
  engine: TestEngine,
  scope: AuthoringScope,
  input: {
    testCaseId: string;
    version?: number;
    draft?: boolean;
    /** A suite resolves its target once, for every case. */
    resolved?: ResolvedTarget;
    /** Told the run's ids once its engine run is in the log: a caller that stops waiting can still name it and read its trace. */
    onStarted?: (run: StartedTestRun) => void;
  },
  metadata: CommandMetadata,
): Promise<TestRunSummary> {
  const commands = commandsOf(engine);
  const { definition, flowId } = await requireTestCase(commands, scope, input.testCaseId);
  const flow = await requireFlow(commands, scope, flowId);
  const testRunId = randomUUID();
  const executionId = randomUUID();
  const resolved = input.resolved ?? resolveTarget(flow, input, testRunId);
  // Every attachment rule of /execute, against the target's blocks, before anything is recorded.
  await checkAttachments(definition.input.attachments ?? [], resolved.steps, { guard: engine.guard, registry: engine.registry, defaultModel: engine.settings.defaultModel });
  const record = (command: TestRunCommand) => handleCommand(commands, testRunStream(testRunId), testRun, command, { ...metadata, correlationId: testRunId });
  await record({ type: 'Start', event: { type: 'TestRunStarted', data: { testRunId, testCaseId: input.testCaseId, flowId: flow.flowId, organizationId: flow.organizationId, executionId, target: resolved.target } } });


  const target: TestRunSummary['target'] = resolved.target.kind === 'version' ? { kind: 'version', number: resolved.target.number } : { kind: 'draft' };
  const begun = engine.now().getTime();
  let told = false;
  const tell = () => {
    if (told) return;
    told = true;
    input.onStarted?.({ testRunId, testCaseId: input.testCaseId, executionId, name: definition.name });
  };
  try {
    // Told once the engine run is in the log: from then on its trace can be read by flow_run_id.
    await runWithScriptedTools(engine, { executionId, testRunId, flow, resolved, definition, principal: metadata.principal, onRecorded: tell });
  } catch (error) {
    // The run itself failed to run (the log went away, say): the test run ends failed, naming why, instead of staying started.
    tell();
    const failure = error instanceof ApiError ? { code: error.code, message: error.message } : { code: 'INTERNAL', message: 'internal error' };
    engine.logger.error({ err: error, testRunId, executionId }, 'test run failed to run');
    const failed = { testRunId, testCaseId: input.testCaseId, executionId, runStatus: 'failed' as const, passed: false, results: [], latencyMs: Math.max(0, engine.now().getTime() - begun), tokens: 0, error: failure };
    const recorded = await record({ type: 'Finish', event: { type: 'TestRunFinished', data: failed } }).catch(() => {
      throw error;
    });
    return { ...failed, output: null, name: definition.name, target, position: recorded.position };
  }

  const { history, events } = await readRunHistory(engine.eventStore, executionId);
  const observed = observeRun(history, events);
  const results: RecordedAssertionResult[] = [];
  let judgeTokens = 0;
  for (const assertion of definition.assertions) {
    if (assertion.type !== 'llm_judge') {
      results.push({ type: assertion.type, ...(assertion.step === undefined ? {} : { step: assertion.step }), ...evaluateAssertion(assertion, observed) });
      continue;
    }
    // With `step`, the judge reads that block's output; a block that did not complete fails the assertion without a model call.
    const target = assertion.step === undefined ? null : stepObserved(observed, assertion.step);
    if (target && 'problem' in target) {
      results.push({ type: assertion.type, step: assertion.step, passed: false, score: 0, reason: target.problem });
      continue;
    }
    const verdict = await judge(engine, flow.organizationId, assertion, target ? target.observed.result : observed.result);
    results.push(assertion.step === undefined ? verdict.result : { ...verdict.result, step: assertion.step });
    if (verdict.tokens > 0) {
      judgeTokens += verdict.tokens;
      await record({ type: 'Charge', event: { type: 'CreditsConsumed', data: { executionId, organizationId: flow.organizationId, blockName: 'llm_judge', model: verdict.model, tokens: verdict.tokens } } });
    }
  }
  const passed = observed.status === 'completed' && results.every((r) => r.passed);
  // A run that failed says why, as its own ExecutionFailed did: what a failing test case is read for first.
  const ending = history.ending;
  const error = ending?.status === 'failed' ? { code: ending.failure.code, message: ending.failure.message } : null;
  const finished = { testRunId, testCaseId: input.testCaseId, executionId, runStatus: observed.status, passed, results, latencyMs: observed.latencyMs, tokens: observed.tokens + judgeTokens, error };
  const recorded = await record({ type: 'Finish', event: { type: 'TestRunFinished', data: finished } });
  return { ...finished, output: observed.result, name: definition.name, target, position: recorded.position };
}

/**
 * An ordinary run of the engine (mode `test`: never a webhook, credits charged) on the resolved
 * target, its tool calls answered from the case's scripted results (the one answered-tools loop of
 * src/runs), until it ends or stays paused.
 */
async function runWithScriptedTools(
  engine: TestEngine,
  run: { executionId: string; testRunId: string; flow: Extract<FlowState, { status: 'created' }>; resolved: ResolvedTarget; definition: TestCaseDefinition; principal: Principal; onRecorded: () => void },
): Promise<void> {
  const { executionId, flow, resolved, definition, principal } = run;
  const input = { message: definition.input.message, parameters: definition.input.parameters, attachments: definition.input.attachments ?? [] };
  const request = runRequest(runOnTarget(flow, resolved), input, { executionId, mode: 'test', principal, tools: scriptedTools(definition.tool_results, `the test case '${definition.name}'`), testRunId: run.testRunId });
  await runWithAnsweredTools(engine, request, {
    answer: answerFromScript(definition.tool_results),
    loadSteps: stepsOfTarget(engine, resolved),
    onStarted: run.onRecorded,
  });
}

