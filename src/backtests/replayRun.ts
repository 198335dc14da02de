import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { handleCommand } from '../commands/commandHandler.ts';
import { answerFromRecorded } from '../domain/backtests/toolReplay.ts';
import type { ObservedSide } from '../domain/backtests/pairComparison.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import type { FlowState } from '../domain/flows/flow.ts';
import type { Tool } from '../domain/tools/toolRules.ts';
import { checkAttachments } from '../execution/attachmentGate.ts';
import { type ToolRequest, commandsOf } from '../execution/engineDependencies.ts';
import { type PreparedRun, prepareExecution, prepareResume } from '../execution/flowEngine.ts';
import { readRunHistory } from '../execution/runHistoryOf.ts';
import type { ExecutionOutcome } from '../execution/runSteps.ts';
import type { TestEngine } from '../testing/testRunner.ts';
import { type ResolvedTarget, runOnTarget } from '../testing/testTarget.ts';
import type { RecordedRun } from './recordedRun.ts';
import { sideOf } from './recordedRun.ts';

/** A replay stops answering tool calls after this many rounds (a model that keeps asking). */
const MAX_REPLAY_ROUNDS = 50;

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

const stopped = (code: string, message: string): ObservedSide => ({ status: 'failed', result: null, durationMs: 0, tokens: 0, error: { code, message } });

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
  let prepared: PreparedRun = await prepareExecution(engine, {
    executionId,
    ...runOnTarget(flow, resolved),
    message: requested.message,
    parameters: requested.parameters,
    attachments: requested.attachments,
    tools,
    mode: 'backtest',
    apiKeyId: null,
    principal,
    backtestId: run.backtestId,
  });
  let outcome: ExecutionOutcome = await prepared.start();
  const used = new Set<number>();
  for (let round = 0; outcome.status === 'paused' && tools && round < MAX_REPLAY_ROUNDS; round++) {
    const { answers, unanswered } = answerFromRecorded(recorded.calls ?? [], used, outcome.toolCalls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })));
    if (unanswered.length > 0) {
      const why = recorded.calls === null ? 'the original run was recorded before tool results were kept' : `the original run never called ${unanswered.join(', ')}`;
      return cancelReplay(engine, executionId, principal, 'TOOL_RESULT_NOT_RECORDED', `the replay asked for a tool result the log does not hold: ${why}`);
    }
    prepared = await prepareResume(engine, {
      executionId,
      flowId: flow.flowId,
      pausedAtStep: outcome.pausedAtStep,
      toolCallMessages: [...(outcome.toolCallMessages as ChatCompletionMessageParam[]), ...answers.map((a) => ({ role: 'tool', tool_call_id: a.toolCallId, content: a.content }))],
      tools,
      followed: false,
      principal,
      loadSteps: async (versionId) => (versionId === resolved.versionId && resolved.target.kind === 'draft' ? resolved.steps : engine.flows.versionSteps(versionId)),
    });
    outcome = await prepared.start();
  }
  if (outcome.status === 'paused') return cancelReplay(engine, executionId, principal, 'TOOL_RESULT_NOT_RECORDED', `the replay was still asking for tools after ${MAX_REPLAY_ROUNDS} rounds`);
  return sideOf((await readRunHistory(engine.eventStore, executionId)).history);
}

/** Ends a replay left paused (a cancelled run, nobody waits on it), and says why as the candidate's side. */
async function cancelReplay(engine: TestEngine, executionId: string, principal: Principal, code: string, message: string): Promise<ObservedSide> {
  const { history } = await readRunHistory(engine.eventStore, executionId);
  const durationMs = history.requestedAt ? Math.max(0, engine.now().getTime() - Date.parse(history.requestedAt)) : 0;
  await handleCommand(commandsOf(engine), executionStream(executionId), execution, { type: 'Cancel', data: { reason: message, durationMs } }, { principal, correlationId: executionId });
  return { ...sideOf((await readRunHistory(engine.eventStore, executionId)).history), error: { code, message } };
}
