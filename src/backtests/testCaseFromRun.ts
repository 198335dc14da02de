import { type AuthoringScope, inScope } from '../authoring/authoringScope.ts';
import type { CommandDependencies, CommandMetadata } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Assertion, TestCaseDefinition } from '../domain/testing/testCaseDefinition.ts';
import { readRecordedRun } from './recordedRun.ts';
import { addTestCase } from '../testing/testCases.ts';

/**
 * A recorded run as a test case of its flow: its input (message, parameters, attachments), the
 * results its caller sent for each tool (the first one, when a tool was called more than once: a
 * case scripts one result per tool), and an `equals` assertion on its result. A run that failed
 * gets a `json_schema` assertion instead: it passes once the flow completes on that input. The case
 * keeps the run's id (`fromExecutionId`) and its own copy of the input, which an erasure of the run
 * does not touch (delete the case too); edit its assertions afterwards with `test update`.
 */
export async function testCaseFromRun(deps: CommandDependencies, scope: AuthoringScope, input: { executionId: string; name?: string | undefined }, metadata: CommandMetadata) {
  const recorded = await readRecordedRun(deps.eventStore, input.executionId);
  if (!recorded || !inScope(scope, recorded.requested.organizationId)) throw new ApiError('EXECUTION_NOT_FOUND', `No run ${input.executionId}`);
  const { requested, side } = recorded;
  if (recorded.erasedAt !== null) throw new ApiError('CONFLICT', `run ${input.executionId}'s data was erased (${recorded.erasedAt}): there is no input to make a test case of`);
  if (side.status === 'paused') throw new ApiError('CONFLICT', `run ${input.executionId} has not ended (it waits for tool results): a test case needs how it ended`);
  const toolResults: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const call of recorded.calls ?? []) {
    if (Object.hasOwn(toolResults, call.name)) repeated.add(call.name);
    else toolResults[call.name] = call.content;
  }
  const assertion: Assertion = side.status === 'completed' ? { type: 'equals', value: side.result } : { type: 'json_schema', schema: { type: 'object' } };
  const definition: TestCaseDefinition = {
    name: input.name ?? `from run ${input.executionId.slice(0, 8)}`,
    input: {
      message: requested.message ?? '',
      ...(Object.keys(requested.parameters).length > 0 ? { parameters: requested.parameters } : {}),
      ...(requested.attachments.length > 0 ? { attachments: requested.attachments } : {}),
    },
    ...(Object.keys(toolResults).length > 0 ? { tool_results: toolResults } : {}),
    assertions: [assertion],
  };
  const created = await addTestCase(deps, scope, { flowId: requested.flowId, definition, fromExecutionId: input.executionId }, metadata);
  const warnings = [
    ...(recorded.calls === null ? ['the run was recorded before tool results were kept: add tool_results with test update'] : []),
    ...[...repeated].map((name) => `tool ${name} was called more than once; the case answers every call with the first result`),
    ...(side.status === 'failed' ? [`the run failed (${side.error?.code}): the case asserts that the flow completes`] : []),
  ];
  return { ...created, fromExecutionId: input.executionId, definition, warnings };
}
