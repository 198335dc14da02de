import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import type { RunStatus } from '../../src/domain/execution/runStatus.ts';

/**
 * One table of runs, each a sequence of its events and the status every face must show after
 * them: the run history (traces, MCP, the console's run view), the job poll (mapped), the runs and
 * jobs read models (listings). Each face's test runs the same table.
 */
export interface RunStatusCase {
  name: string;
  mode: 'sync' | 'async' | 'step' | 'test';
  /** The run's events after its ExecutionRequested (added by `eventsOf`). */
  after: ((executionId: string) => ExecutionEvent)[];
  status: RunStatus;
}

const claimed = (claim: number) => (executionId: string): ExecutionEvent => ({ type: 'JobClaimed', data: { executionId, worker: `w${claim}`, claim } });
const paused = (executionId: string): ExecutionEvent => ({
  type: 'ExecutionPausedForToolCalls',
  data: { executionId, stepIndex: 0, blockId: 'b', blockName: 'b', iterationsUsed: 1, toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }], messagesDigest: 'd', messageCount: 2 },
});
const resumed = (executionId: string): ExecutionEvent => ({ type: 'ExecutionResumed', data: { executionId, stepIndex: 0, blockName: 'b', iterationsUsed: 1, toolCallIds: ['c1'], toolResults: [] } });
const completedStep = (executionId: string): ExecutionEvent => ({
  type: 'ExecutionStepCompleted',
  data: { executionId, stepIndex: 0, blockId: 'b', blockName: 'b', iteration: null, output: 'x', model: null, usage: null, durationMs: 1, attempts: 1, validationErrors: [] },
});
const completed = (executionId: string): ExecutionEvent => ({ type: 'ExecutionCompleted', data: { executionId, result: { value: 'x' }, durationMs: 5 } });
const failed = (executionId: string): ExecutionEvent => ({ type: 'ExecutionFailed', data: { executionId, reason: 'cancelled', code: 'CANCELLED', message: 'cancelled by test', detail: null, stepIndex: null, blockName: null, durationMs: 5 } });
const rerunLinked = (executionId: string): ExecutionEvent => ({ type: 'ExecutionRerunStarted', data: { executionId, rerunExecutionId: 'r' } });

export const runStatusCases: RunStatusCase[] = [
  { name: 'a job nobody has claimed yet', mode: 'async', after: [], status: 'queued' },
  { name: 'a job its first runner works on', mode: 'async', after: [claimed(1), completedStep], status: 'running' },
  { name: 'a job taken over by a second runner', mode: 'async', after: [claimed(1), claimed(2)], status: 'retrying' },
  { name: 'a job that completed after a takeover', mode: 'async', after: [claimed(1), claimed(2), completed], status: 'completed' },
  { name: 'a job cancelled before any runner took it', mode: 'async', after: [failed], status: 'failed' },
  { name: 'a sync run just requested', mode: 'sync', after: [], status: 'running' },
  { name: 'a sync run waiting for tool results', mode: 'sync', after: [paused], status: 'paused' },
  { name: 'a sync run resumed with tool results', mode: 'sync', after: [paused, resumed], status: 'running' },
  { name: 'a step run that completed after a resume', mode: 'step', after: [paused, resumed, completedStep, completed], status: 'completed' },
  { name: 'a test run that failed', mode: 'test', after: [completedStep, failed], status: 'failed' },
  { name: 'a completed run an operator reran', mode: 'sync', after: [completed, rerunLinked], status: 'completed' },
];

/** The case's whole stream for a run of `flow`. */
export function eventsOf(c: RunStatusCase, executionId: string, flow: { flowId: string; versionId: string; organizationId: string; projectId: string }): ExecutionEvent[] {
  const requested: ExecutionEvent = {
    type: 'ExecutionRequested',
    data: { executionId, ...flow, versionNumber: 1, mode: c.mode, message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
  };
  return [requested, ...c.after.map((event) => event(executionId))];
}
