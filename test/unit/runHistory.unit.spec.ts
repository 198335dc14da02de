import { describe, expect, it } from 'vitest';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { foldRunHistory, outputOfStep } from '../../src/domain/execution/runHistory.ts';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';

const requested: ExecutionEvent = {
  type: 'ExecutionRequested',
  data: { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'async', message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 4, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
};
const completed = (stepIndex: number, blockName: string, iteration: number | null, output: unknown): ExecutionEvent => ({
  type: 'ExecutionStepCompleted',
  data: { executionId: 'e', stepIndex, blockId: blockName, blockName, iteration, output, model: null, usage: null, durationMs: 1, attempts: 1, validationErrors: [] },
});
const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;
const steps = [
  { block: { id: 'a', name: 'a', processor_type: 'passthrough' } },
  { parallel: [{ id: 'b', name: 'b', processor_type: 'passthrough' }, { id: 'c', name: 'c', processor_type: 'passthrough' }] },
  { loop: { over: 'previous_output.b', block: { id: 'd', name: 'd', processor_type: 'passthrough' } } },
] as unknown as StoredStep[];

describe('a run history, folded from the run\'s events', () => {
  it('given a run claimed twice that completed blocks of every step shape and ended, tells what every reader needs', () => {
    const history = foldRunHistory(
      [
        requested,
        { type: 'JobClaimed', data: { executionId: 'e', worker: 'w1', claim: 1 } },
        completed(0, 'a', null, 'x'),
        { type: 'JobClaimed', data: { executionId: 'e', worker: 'w2', claim: 2 } },
        completed(1, 'c', null, 2),
        completed(1, 'b', null, [1, 2]),
        completed(2, 'd', 1, 'second'),
        completed(2, 'd', 0, 'first'),
        { type: 'ExecutionCompleted', data: { executionId: 'e', result: { value: ['first', 'second'] }, durationMs: 42 } },
      ].map((event, i) => ({ event: event as ExecutionEvent, occurredAt: at(i) })),
    );
    expect(history).toMatchObject({ requestedAt: at(0), claims: 2, claimedAt: at(1), status: 'completed', outputs: { a: 'x', b: [1, 2], c: 2 } });
    expect(history.ending).toEqual({ status: 'completed', result: { value: ['first', 'second'] }, durationMs: 42, at: at(8) });
    // The job view the poll answers and the jobs projection writes: started at the request, running from the first claim.
    expect(history.job).toEqual({ executionId: 'e', flowId: 'f', status: 'completed', claims: 2, createdAt: at(0), startedAt: at(1), completedAt: at(8), durationMs: 42, result: { value: ['first', 'second'] }, failureReason: null, errorCode: null, errorMessage: null, errorDetail: null, dataErasedAt: null, waitingFor: null });
    expect(outputOfStep(history, steps[0]!, 0)).toBe('x');
    expect(outputOfStep(history, steps[1]!, 1)).toEqual({ b: [1, 2], c: 2 });
    expect(outputOfStep(history, steps[2]!, 2)).toEqual(['first', 'second']);
  });

  it('given a pause and a failure, reports them; a block named __proto__ is an output like any other', () => {
    const history = foldRunHistory(
      [requested, completed(0, '__proto__', null, 'own'), { type: 'ExecutionPausedForToolCalls', data: { executionId: 'e', stepIndex: 1, blockId: 'x', blockName: 'x', iterationsUsed: 1, toolCalls: [], messagesDigest: 'd', messageCount: 2 } }].map((event, i) => ({
        event: event as ExecutionEvent,
        occurredAt: at(i),
      })),
    );
    expect(history.status).toBe('paused');
    expect(Object.keys(history.outputs)).toEqual(['__proto__']);
    const failed = foldRunHistory([{ event: requested, occurredAt: at(0) }, { event: { type: 'ExecutionFailed', data: { executionId: 'e', reason: 'error', code: 'JOB_ABANDONED', message: 'm', detail: null, stepIndex: null, blockName: null, durationMs: 5 } }, occurredAt: at(1) }]);
    expect(failed.ending).toMatchObject({ status: 'failed', failure: { code: 'JOB_ABANDONED' }, at: at(1) });
  });
});
