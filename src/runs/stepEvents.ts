import { failureText } from '../domain/execution/failureMessage.ts';
import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import type { PauseData } from '../execution/pauseData.ts';

/** One event of a run as a step-through reader sees it (spec: the /step events). */
export interface StepEvent {
  event: string;
  data: unknown;
}

/** The events after which nothing more is streamed: the run ended, or waits for tool results or for a person. */
export const STEP_TERMINAL = new Set<ExecutionEvent['type']>(['ExecutionCompleted', 'ExecutionFailed', 'ExecutionPausedForToolCalls', 'ApprovalRequested']);

/**
 * A run's event as a step event: `pause` is the latest pause's full data when this process has it
 * (the log keeps only the conversation's digest), `accumulated` the outputs of the blocks so far.
 * `extended`: the reader asked for the events beyond the spec's (`step_skipped`).
 */
export function stepEventOf(event: ExecutionEvent, context: { flowId: string; blockCount: number; extended?: boolean }, pause: PauseData | undefined, accumulated: Record<string, unknown>): StepEvent | undefined {
  switch (event.type) {
    case 'ExecutionRequested': {
      const d = event.data;
      return { event: 'started', data: { executionId: d.executionId, flowId: d.flowId, versionId: d.versionId, versionNumber: d.versionNumber, blockCount: d.blockCount } };
    }
    case 'ExecutionResumed':
      return { event: 'resumed', data: { executionId: event.data.executionId, pausedAtStep: event.data.blockName, iterationsUsed: event.data.iterationsUsed } };
    case 'ExecutionStepStarted': {
      const d = event.data;
      return { event: 'step_started', data: { executionId: d.executionId, stepIndex: d.stepIndex, blockId: d.blockId, blockName: d.blockName, iteration: d.iteration, processorType: d.processorType } };
    }
    case 'ExecutionStepCompleted': {
      const d = event.data;
      return { event: 'step_completed', data: { executionId: d.executionId, stepIndex: d.stepIndex, blockId: d.blockId, blockName: d.blockName, iteration: d.iteration, output: d.output, model: d.model, usage: d.usage, durationMs: d.durationMs } };
    }
    case 'ExecutionStepSkipped': {
      // Not one of the spec's events: only for a reader that asked for more (`?events=extended`).
      const d = event.data;
      return context.extended ? { event: 'step_skipped', data: { executionId: d.executionId, stepIndex: d.stepIndex, blockId: d.blockId, blockName: d.blockName, iteration: d.iteration, condition: d.condition, values: d.values, ...(d.branch ? { branch: d.branch } : {}) } } : undefined;
    }
    case 'ExecutionPausedForToolCalls': {
      const d = event.data;
      const toolCalls = d.toolCalls.map((c) => ({ id: c.id, function: { name: c.name, arguments: c.arguments } }));
      return {
        event: 'step_paused_for_tool_calls',
        data: pause
          ? { status: 'tool_calls_required', ...pause }
          : // The log keeps only the conversation's digest; a reader in another process gets no messages.
            { status: 'tool_calls_required', executionId: d.executionId, pausedAtStep: d.blockName, iterationsUsed: d.iterationsUsed, toolCallMessages: null, toolCalls, accumulatedOutputs: accumulated },
      };
    }
    case 'ApprovalRequested': {
      // Not one of the spec's events (approvals are an addition): the run goes on as a job once decided.
      const d = event.data;
      return { event: 'step_waiting_for_approval', data: { status: 'approval_required', executionId: d.executionId, stepId: d.blockName, approvers: d.approvers, onTimeout: d.onTimeout, timeoutMs: d.timeoutMs } };
    }
    case 'ExecutionCompleted':
      return { event: 'completed', data: { status: 'completed', executionId: event.data.executionId, result: event.data.result, flowId: context.flowId, blockCount: context.blockCount } };
    case 'ExecutionFailed': {
      const d = event.data;
      return { event: 'failed', data: { executionId: d.executionId, code: d.code, message: failureText(d), failureReason: d.reason, step_name: d.blockName } };
    }
    default:
      return undefined; // CreditsConsumed, JobClaimed: accounting facts, not progress
  }
}
