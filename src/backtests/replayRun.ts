import { handleCommand } from '../commands/commandHandler.ts';
import { answerFromRecorded } from '../domain/backtests/toolReplay.ts';
import type { ObservedSide } from '../domain/backtests/pairComparison.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import type { FlowState } from '../domain/flows/flow.ts';
import type { Tool } from '../domain/tools/toolDefinition.ts';
import { checkAttachments } from '../execution/attachmentGate.ts';
import { type ToolRequest, commandsOf } from '../execution/engineDependencies.ts';
import { MAX_ANSWERED_ROUNDS, runWithAnsweredTools } from '../execution/answeredToolsRun.ts';
import { runRequest } from '../execution/runRequest.ts';
import { readRunHistory } from '../execution/runHistoryOf.ts';
import type { TestEngine } from '../testing/testRunner.ts';
import { type ResolvedTarget, runOnTarget, stepsOfTarget } from '../testing/testTarget.ts';
import type { RecordedRun } from './recordedRun.ts';
import { sideOf } from './recordedRun.ts';

/**
 * The tools a replay declares: those the original's caller declared (recorded since ExecutionRequested
 * v5), else, for a run recorded before, each tool it was called with, with an open parameter schema.
 */
function toolsOf(recorded: RecordedRun): ToolRequest | undefined {
  if (recorded.requested.tools) return recorded.requested.tools;
  const names = [...new Set((recorded.calls ?? []).map((c) => c.name))];
  if (names.length === 0) return undefined;
  const tools: Tool[] = names.map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));
  return { tools, toolChoice: 'auto' };
}

const stopped = (code: string, message: string): ObservedSide => ({ status: 'failed', result: null, durationMs: 0, tokens: 0, error: { code, message }, steps: {} });

/**
 * Replays one recorded run on the target: an ordinary engine run of mode `backtest` (its own stream,
 * charged like any run, never a webhook) with the original's input, its tool calls answered from the
 * results the original's caller sent. A call the original never made cannot be answered: the replay
 * is cancelled there and its side says why. Refusals before the run (an attachment the target's
 * models cannot take) are the candidate's failure too, with nothing recorded.
 */
export async function replayRun(
  engine: TestEngine,
  run: { backtestId: string; backtestExecutionId: string; flow: Extract<FlowState, { status: 'created' }>; resolved: ResolvedTarget; recorded: RecordedRun; principal: Principal },
): Promise<ObservedSide> {
  const { backtestExecutionId: executionId, flow, resolved, recorded, principal } = run;
  const requested = recorded.requested;
  try {
    await checkAttachments(requested.attachments, resolved.steps, { guard: engine.guard, registry: engine.registry, defaultModel: engine.settings.defaultModel });
  } catch (error) {
    if (error instanceof ApiError) return stopped(error.code, error.message);
    throw error;
  }
  const tools = toolsOf(recorded);
  const request = runRequest(runOnTarget(flow, resolved), requested, { executionId, mode: 'backtest', principal, tools, backtestId: run.backtestId });
  const used = new Set<number>();
  const { outcome, unanswered } = await runWithAnsweredTools(engine, request, {
    answer: (pause) => {
      const answered = answerFromRecorded(recorded.calls ?? [], used, pause.toolCalls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })));
      return answered.unanswered.length > 0 ? { unanswered: answered.unanswered } : { messages: answered.answers.map((a) => ({ role: 'tool' as const, tool_call_id: a.toolCallId, content: a.content })) };
    },
    loadSteps: stepsOfTarget(engine, resolved),
  });
  if (unanswered.length > 0) {
    const why = recorded.calls === null ? 'the original run was recorded before tool results were kept' : `the original run never called ${unanswered.join(', ')}`;
    return cancelReplay(engine, executionId, principal, 'TOOL_RESULT_NOT_RECORDED', 'the replay asked for a tool result the log does not hold', why);
  }
  if (outcome.status === 'paused') return cancelReplay(engine, executionId, principal, 'TOOL_RESULT_NOT_RECORDED', `the replay was still asking for tools after ${MAX_ANSWERED_ROUNDS} rounds`);
  return sideOf((await readRunHistory(engine.eventStore, executionId)).history);
}

/** Ends a replay left paused (a cancelled run, nobody waits on it), and says why as the candidate's side. */
async function cancelReplay(engine: TestEngine, executionId: string, principal: Principal, code: string, message: string, detail: string | null = null): Promise<ObservedSide> {
  const { history } = await readRunHistory(engine.eventStore, executionId);
  const durationMs = history.requestedAt ? Math.max(0, engine.now().getTime() - Date.parse(history.requestedAt)) : 0;
  await handleCommand(commandsOf(engine), executionStream(executionId), execution, { type: 'Cancel', data: { message, detail, durationMs } }, { principal, correlationId: executionId });
  return { ...sideOf((await readRunHistory(engine.eventStore, executionId)).history), error: { code, message } };
}
