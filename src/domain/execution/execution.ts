import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import { conversationDigest } from '../tools/conversationDigest.ts';
import type { ErasureMatch, ExecutionEvent, ExecutionRequested, RequestedToolCall } from './executionEvents.ts';
import type { EventOf } from '../events/eventDefinition.ts';
import { type ApprovalWait, type MemberDecision, type TimeoutDecision, decideByMember, decideByTimeout } from './approvalDecision.ts';

type ExecutionMode = EventOf<typeof ExecutionRequested>['data']['mode'];

/**
 * The life of one run. The engine proposes each fact; the decider refuses anything after the run
 * ended, and accepts a resume only for the pause it recorded: the same block, the same conversation
 * (by digest), and exactly one result per requested call.
 */
export interface PauseState {
  stepIndex: number;
  blockName: string;
  iterationsUsed: number;
  toolCalls: RequestedToolCall[];
  messagesDigest: string;
  messageCount: number;
}

export type ExecutionState =
  | { status: 'none' }
  | {
      /** `waiting`: for a person's decision at an approval block (`waiting`); `paused`: for the caller's tool results (`pause`). */
      status: 'running' | 'paused' | 'waiting' | 'completed' | 'failed';
      executionId: string;
      organizationId: string;
      flowId: string;
      projectId: string;
      versionId: string;
      mode: ExecutionMode;
      pause: PauseState | null;
      waiting: ApprovalWait | null;
      /** Approval blocks decided so far, by name: a second decision is refused. */
      decided: ReadonlySet<string>;
      /** Tool-calling turns per block name, from this run's own events. */
      iterations: ReadonlyMap<string, number>;
      /** When its data was erased (RunDataErased), or null. */
      erasedAt: string | null;
    };

/** The caller's side of a resume: the pause's messages, then one tool message per requested call. */
export interface ResumeRequest {
  pausedAtStep: string;
  toolCallMessages: unknown[];
}

export type ExecutionCommand =
  | { type: 'Record'; event: ExecutionEvent }
  | { type: 'Resume'; data: ResumeRequest; flowId: string }
  /** A member decides the approval the run waits at (approvalDecision.ts). */
  | { type: 'DecideApproval'; data: MemberDecision }
  /** The approval's time ran out (the sweep, on the database's clock): its policy decides, unless decided already. */
  | { type: 'TimeOutApproval'; data: TimeoutDecision }
  /** A link to a rerun: accepted in any state once the run exists (reruns are made of ended runs). */
  | { type: 'LinkRerun'; data: { rerunExecutionId: string } }
  /**
   * An operator ends a run that has not ended. A paused run of any mode (nobody works on it), or a
   * running /jobs run: its runner's next append meets this event's revision and stops. A running
   * sync, step or test run is refused: its caller is waiting on it and would get a broken answer.
   */
  | { type: 'Cancel'; data: { message: string; detail: string | null; durationMs: number } }
  /**
   * The run's end could not be recorded (the log refused it, or its append failed): a run the log
   * shows running ends failed with RUN_RECORD_FAILED instead. Refused for any other state: an ended
   * run's end is recorded already (someone else's), and a paused one is not stuck (the resume that
   * failed to be written can be sent again).
   */
  | { type: 'RecordUnrecordedEnd'; data: { message: string; durationMs: number } }
  /**
   * Erase the run's personal data (crypto-shredding): only a run that has ended, since a running or
   * paused one would go on writing what was just erased (cancel it first). Erasing again changes
   * nothing: the first erasure stands.
   */
  | { type: 'Erase'; data: { trigger: 'request' | 'retention'; reason: string; erasedAt: string; match: ErasureMatch | null } };

const isToolMessage = (m: unknown): m is { role: 'tool'; tool_call_id: string; content: unknown } =>
  typeof m === 'object' && m !== null && (m as { role?: unknown }).role === 'tool' && typeof (m as { tool_call_id?: unknown }).tool_call_id === 'string';

export const execution: Decider<ExecutionCommand, ExecutionEvent, ExecutionState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'ExecutionRequested') {
      const { executionId, organizationId, flowId, projectId, versionId, mode } = event.data;
      return { status: 'running', executionId, organizationId, flowId, projectId, versionId, mode, pause: null, waiting: null, decided: new Set(), iterations: new Map(), erasedAt: null };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'ExecutionPausedForToolCalls': {
        const { stepIndex, blockName, iterationsUsed, toolCalls, messagesDigest, messageCount } = event.data;
        return { ...state, status: 'paused', pause: { stepIndex, blockName, iterationsUsed, toolCalls, messagesDigest, messageCount }, iterations: new Map(state.iterations).set(blockName, iterationsUsed) };
      }
      case 'ExecutionResumed':
        return { ...state, status: 'running', pause: null };
      case 'ApprovalRequested': {
        const { stepIndex, blockId, blockName, approvers, onTimeout } = event.data;
        return { ...state, status: 'waiting', waiting: { stepIndex, blockId, blockName, approvers, onTimeout } };
      }
      case 'ApprovalDecided':
        return { ...state, status: 'running', waiting: null, decided: new Set(state.decided).add(event.data.blockName) };
      case 'ExecutionFailed':
        return { ...state, status: 'failed', pause: null, waiting: null };
      case 'ExecutionCompleted':
        return { ...state, status: 'completed' };
      case 'RunDataErased':
        return { ...state, erasedAt: state.erasedAt ?? event.data.erasedAt };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    if (command.type === 'Resume') return decideResume(command.data, command.flowId, state);
    if (command.type === 'LinkRerun') {
      if (state.status === 'none') throw new ApiError('EXECUTION_NOT_FOUND', 'No such execution');
      return [{ type: 'ExecutionRerunStarted', data: { executionId: state.executionId, rerunExecutionId: command.data.rerunExecutionId } }];
    }
    if (command.type === 'Cancel') return decideCancel(command.data, state);
    if (command.type === 'DecideApproval') return decideByMember(command.data, state.status === 'none' ? null : state);
    if (command.type === 'TimeOutApproval') return decideByTimeout(command.data, state.status === 'none' ? null : state);
    if (command.type === 'Erase') return decideErase(command.data, state);
    if (command.type === 'RecordUnrecordedEnd') {
      if (state.status === 'none') throw new ApiError('EXECUTION_ID_INVALID', 'No such execution');
      if (state.status !== 'running') throw new ApiError('CONFLICT', `Execution ${state.executionId} is ${state.status}`);
      const data = { executionId: state.executionId, reason: 'error' as const, code: 'RUN_RECORD_FAILED', message: command.data.message, detail: null, stepIndex: null, blockName: null, durationMs: command.data.durationMs };
      return [{ type: 'ExecutionFailed', data }];
    }
    const { event } = command;
    if (event.type === 'ExecutionRequested') {
      if (state.status !== 'none') throw new ApiError('CONFLICT', `Execution ${state.executionId} already exists`);
      return [event];
    }
    if (state.status === 'none') throw new ApiError('EXECUTION_ID_INVALID', 'No such execution');
    if (state.status !== 'running') throw new ApiError('CONFLICT', `Execution ${state.executionId} is ${state.status}`);
    return [event];
  },
};

function decideCancel(data: { message: string; detail: string | null; durationMs: number }, state: ExecutionState): ExecutionEvent[] {
  if (state.status === 'none') throw new ApiError('EXECUTION_NOT_FOUND', 'No such execution');
  if (state.status === 'completed' || state.status === 'failed') throw new ApiError('CONFLICT', `execution ${state.executionId} has already ${state.status}; only a run that has not ended can be cancelled`);
  if (state.status === 'running' && state.mode !== 'async') {
    throw new ApiError('CONFLICT', `execution ${state.executionId} is a running ${state.mode} run: its caller is waiting on it; only /jobs runs and paused runs can be cancelled`);
  }
  const pausedAt = state.pause ?? state.waiting;
  return [
    {
      type: 'ExecutionFailed',
      data: { executionId: state.executionId, reason: 'cancelled', code: 'CANCELLED', message: data.message, detail: data.detail, stepIndex: pausedAt?.stepIndex ?? null, blockName: pausedAt?.blockName ?? null, durationMs: data.durationMs },
    },
  ];
}

function decideErase(data: { trigger: 'request' | 'retention'; reason: string; erasedAt: string; match: ErasureMatch | null }, state: ExecutionState): ExecutionEvent[] {
  if (state.status === 'none') throw new ApiError('EXECUTION_NOT_FOUND', 'No such execution');
  if (state.erasedAt !== null) return [];
  if (state.status === 'running' || state.status === 'paused' || state.status === 'waiting') {
    throw new ApiError('CONFLICT', `execution ${state.executionId} is ${state.status}: only a run that has ended can be erased (cancel it first)`);
  }
  return [{ type: 'RunDataErased', data: { executionId: state.executionId, ...data } }];
}

function decideResume(request: ResumeRequest, flowId: string, state: ExecutionState): ExecutionEvent[] {
  if (state.status === 'none' || state.flowId !== flowId) throw new ApiError('EXECUTION_ID_INVALID', 'executionId does not match a run of this flow');
  const pause = state.pause;
  if (state.status !== 'paused' || !pause) {
    throw new ApiError('EXECUTION_ID_INVALID', `execution ${state.executionId} is not paused for tool calls (it is ${state.status}; a pause can be resumed once)`);
  }
  if (request.pausedAtStep !== pause.blockName) {
    throw new ApiError('EXECUTION_ID_INVALID', `execution ${state.executionId} is paused at '${pause.blockName}', not '${request.pausedAtStep}'`);
  }
  const messages = request.toolCallMessages;
  const history = messages.slice(0, pause.messageCount);
  if (history.length !== pause.messageCount || conversationDigest(history) !== pause.messagesDigest) {
    throw new ApiError('TOOL_HISTORY_TAMPERED', 'toolCallMessages must begin with the messages of the pause response, unchanged');
  }
  const results = messages.slice(pause.messageCount);
  const requested = pause.toolCalls.map((c) => c.id);
  const notTool = results.findIndex((m) => !isToolMessage(m));
  if (notTool >= 0) {
    throw new ApiError('TOOL_RESULTS_MISMATCH', `toolCallMessages[${pause.messageCount + notTool}]: after the pause's messages, only {role: "tool", tool_call_id, content} results may follow`);
  }
  const ids = results.map((m) => (m as { tool_call_id: string }).tool_call_id);
  const duplicated = ids.find((id, i) => ids.indexOf(id) !== i);
  const unknown = ids.find((id) => !requested.includes(id));
  const missing = requested.filter((id) => !ids.includes(id));
  if (duplicated || unknown || missing.length > 0) {
    const what = duplicated ? `duplicated result for ${duplicated}` : unknown ? `result for unknown call ${unknown}` : `missing results for ${missing.join(', ')}`;
    throw new ApiError('TOOL_RESULTS_MISMATCH', `tool results must answer each requested call exactly once: ${what}`, { expected: requested });
  }
  // Recorded in the order the calls were requested: a backtest answers the same calls again from them.
  const contentOf = new Map(results.map((m) => [(m as { tool_call_id: string }).tool_call_id, (m as { content: unknown }).content]));
  const toolResults = pause.toolCalls.map((call) => ({ toolCallId: call.id, name: call.name, content: textOf(contentOf.get(call.id)) }));
  return [{ type: 'ExecutionResumed', data: { executionId: state.executionId, stepIndex: pause.stepIndex, blockName: pause.blockName, iterationsUsed: pause.iterationsUsed, toolCallIds: requested, toolResults } }];
}

/** A tool result's content is a string (toolRules.ts checks it first); anything else is kept as its JSON. */
const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content ?? null));
