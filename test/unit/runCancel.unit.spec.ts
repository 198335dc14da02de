import { describe, it } from 'vitest';
import { execution } from '../../src/domain/execution/execution.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const requested = (mode: 'sync' | 'async' | 'step' | 'test'): ExecutionEvent => ({
  type: 'ExecutionRequested',
  data: { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode, message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 2, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
});
const claimed: ExecutionEvent = { type: 'JobClaimed', data: { executionId: 'e', worker: 'w', claim: 1 } };
const paused: ExecutionEvent = {
  type: 'ExecutionPausedForToolCalls',
  data: { executionId: 'e', stepIndex: 1, blockId: 'b', blockName: 'agent', iterationsUsed: 1, toolCalls: [], messagesDigest: 'd', messageCount: 1 },
};
const cancel = { type: 'Cancel' as const, data: { message: 'cancelled by operator olga', detail: 'stuck on a slow provider', durationMs: 1200 } };
const cancelled = (stepIndex: number | null, blockName: string | null): ExecutionEvent => ({
  type: 'ExecutionFailed',
  data: { executionId: 'e', reason: 'cancelled', code: 'CANCELLED', message: 'cancelled by operator olga', detail: 'stuck on a slow provider', stepIndex, blockName, durationMs: 1200 },
});
const spec = deciderSpec(execution);

describe('cancelling a run (decider)', () => {
  it('Given a /jobs run that has not ended, When an operator cancels it, Then it fails with reason cancelled', () => {
    spec.given([requested('async')]).when(cancel).then([cancelled(null, null)]);
    spec.given([requested('async'), claimed]).when(cancel).then([cancelled(null, null)]);
  });

  it('Given a run paused for tool calls, of any mode, Then the cancellation names the block it waited in', () => {
    for (const mode of ['sync', 'step', 'async'] as const) spec.given([requested(mode), paused]).when(cancel).then([cancelled(1, 'agent')]);
  });

  it('refuses a running sync, step or test run (its caller is waiting), an ended run, and a missing one', () => {
    for (const mode of ['sync', 'step', 'test'] as const) spec.given([requested(mode)]).when(cancel).thenRefuses('CONFLICT');
    spec.given([requested('async'), cancelled(null, null)]).when(cancel).thenRefuses('CONFLICT');
    spec.given([requested('async'), { type: 'ExecutionCompleted', data: { executionId: 'e', result: {}, durationMs: 5 } }]).when(cancel).thenRefuses('CONFLICT');
    spec.given([]).when(cancel).thenRefuses('EXECUTION_NOT_FOUND');
  });

  it('Given a cancelled job, Then a runner still working on it can record nothing more', () => {
    spec.given([requested('async'), claimed, cancelled(null, null)]).when({ type: 'Record', event: { type: 'ExecutionStepStarted', data: { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'x', iteration: null, processorType: 'code', input: {}, missingPlaceholders: [] } } }).thenRefuses('CONFLICT');
  });
});
