import { randomUUID } from 'node:crypto';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { type AuthoringScope, requireFlow } from '../authoring/flowAuthoring.ts';
import { type CommandMetadata, handleCommand } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { evaluateAssertion } from '../domain/testing/assertions.ts';
import { testCase } from '../domain/testing/testCase.ts';
import type { TestCaseDefinition } from '../domain/testing/testCaseDefinition.ts';
import { testCaseStream } from '../domain/testing/testCaseEvents.ts';
import { testRun } from '../domain/testing/testRun.ts';
import { type RecordedAssertionResult, testRunStream } from '../domain/testing/testRunEvents.ts';
import type { Tool } from '../domain/tools/toolRules.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { EngineDependencies, ToolRequest } from '../execution/engineDependencies.ts';
import { type PreparedRun, prepareExecution, prepareResume } from '../execution/flowEngine.ts';
import type { ExecutionOutcome } from '../execution/runSteps.ts';
import { findVersionSteps } from '../queries/flowQueries.ts';
import { judge } from './llmJudge.ts';
import { observeRun } from './runObservation.ts';
import { type ResolvedTarget, resolveTarget } from './testTarget.ts';

/** At most this many tool rounds are answered from a test case's scripted results before the run counts as stuck. */
const MAX_SCRIPTED_ROUNDS = 50;

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
}

/**
 * Runs one test case: an ordinary run of the engine (its own `execution-<id>` stream, mode `test`,
 * never a webhook, credits charged), pinned at its start to a target recorded in `testrun-<id>`.
 * Tool calls are answered from the case's scripted results. When the run ends, every assertion is
 * evaluated and the results are recorded (TestRunFinished).
 */
export async function runTestCase(
  engine: EngineDependencies,
  scope: AuthoringScope,
  input: { testCaseId: string; version?: number; draft?: boolean; /** A suite resolves its target once, for every case. */ resolved?: ResolvedTarget },
  metadata: CommandMetadata,
): Promise<TestRunSummary> {
  const { state: testCaseState } = await loadStream(engine.eventStore, testCaseStream(input.testCaseId), testCase);
  if (testCaseState.status !== 'active' || (scope.organizationId !== undefined && testCaseState.organizationId !== scope.organizationId)) {
    throw new ApiError('TEST_CASE_NOT_FOUND', `No test case ${input.testCaseId}`);
  }
  const flow = await requireFlow(engine, scope, testCaseState.flowId);
  const definition = testCaseState.definition;
  const testRunId = randomUUID();
  const executionId = randomUUID();
  const resolved = input.resolved ?? resolveTarget(flow, input, testRunId);
  const deps = { eventStore: engine.eventStore, now: engine.now };
  const stream = testRunStream(testRunId);
  await handleCommand(
    deps,
    stream,
    testRun,
    { type: 'Start', event: { type: 'TestRunStarted', data: { testRunId, testCaseId: input.testCaseId, flowId: flow.flowId, organizationId: flow.organizationId, executionId, target: resolved.target } } },
    { ...metadata, correlationId: testRunId },
  );

  const tools = scriptedTools(definition);
  const principal = metadata.principal;
  let run: PreparedRun = await prepareExecution(engine, {
    executionId,
    flowId: flow.flowId,
    versionId: resolved.versionId,
    versionNumber: resolved.versionNumber,
    organizationId: flow.organizationId,
    projectId: flow.projectId,
    steps: resolved.steps,
    message: definition.input.message,
    parameters: definition.input.parameters ?? {},
    attachments: definition.input.attachments ?? [],
    tools,
    mode: 'test',
    apiKeyId: null,
    principal,
    testRunId,
  });
  let outcome: ExecutionOutcome = await run.start();
  for (let round = 0; outcome.status === 'paused' && tools && round < MAX_SCRIPTED_ROUNDS; round++) {
    const answers = outcome.toolCalls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: definition.tool_results?.[call.function.name] ?? `no scripted result for tool ${call.function.name}` }));
    run = await prepareResume(engine, {
      executionId,
      flowId: flow.flowId,
      pausedAtStep: outcome.pausedAtStep,
      toolCallMessages: [...(outcome.toolCallMessages as ChatCompletionMessageParam[]), ...answers],
      tools,
      principal,
      loadSteps: async (versionId) => (versionId === resolved.versionId && resolved.target.kind === 'draft' ? resolved.steps : findVersionSteps(engine.db, versionId)),
    });
    outcome = await run.start();
  }

  const events = (await engine.eventStore.readStream(executionStream(executionId))).map((r) => decodeRecorded(r));
  const observed = observeRun(events as Parameters<typeof observeRun>[0]);
  const results: RecordedAssertionResult[] = [];
  let judgeTokens = 0;
  for (const assertion of definition.assertions) {
    if (assertion.type !== 'llm_judge') {
      results.push({ type: assertion.type, ...evaluateAssertion(assertion, observed) });
      continue;
    }
    const verdict = await judge(engine, flow.organizationId, assertion, observed.result);
    results.push(verdict.result);
    if (verdict.tokens > 0) {
      judgeTokens += verdict.tokens;
      await handleCommand(deps, stream, testRun, { type: 'Charge', event: { type: 'CreditsConsumed', data: { executionId, organizationId: flow.organizationId, blockName: 'llm_judge', model: verdict.model, tokens: verdict.tokens } } }, { ...metadata, correlationId: testRunId });
    }
  }
  const passed = observed.status === 'completed' && results.every((r) => r.passed);
  const finished = { testRunId, testCaseId: input.testCaseId, executionId, runStatus: observed.status, passed, results, latencyMs: observed.latencyMs, tokens: observed.tokens + judgeTokens };
  await handleCommand(deps, stream, testRun, { type: 'Finish', event: { type: 'TestRunFinished', data: finished } }, { ...metadata, correlationId: testRunId });
  return { ...finished, name: definition.name, target: resolved.target.kind === 'version' ? { kind: 'version', number: resolved.target.number } : { kind: 'draft' } };
}

/** The case's scripted tools, declared to the model so tools-enabled blocks can call them. */
function scriptedTools(definition: TestCaseDefinition): ToolRequest | undefined {
  const names = Object.keys(definition.tool_results ?? {});
  if (names.length === 0) return undefined;
  const tools: Tool[] = names.map((name) => ({ type: 'function', function: { name, description: `Scripted by the test case '${definition.name}'`, parameters: { type: 'object' } } }));
  return { tools, toolChoice: 'auto' };
}
