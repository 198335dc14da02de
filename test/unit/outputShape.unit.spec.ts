import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/domain/domainEvent.ts';
import { replyOutput, resultObject } from '../../src/domain/execution/outputShape.ts';

describe('a run result is always a JSON object', () => {
  it.each([
    [{ answer: 'yes' }, { answer: 'yes' }],
    ['plain text', { text: 'plain text' }],
    ['', { text: '' }],
    [[1, 2], { value: [1, 2] }],
    [42, { value: 42 }],
    [false, { value: false }],
    [null, { value: null }],
    [undefined, { value: null }],
  ])('%j becomes %j', (output, result) => {
    expect(resultObject(output)).toEqual(result);
  });
});

describe('an llm reply without an output schema', () => {
  it.each([
    ['{"tool_results": [{"id": 1}]}', { tool_results: [{ id: 1 }] }],
    ['  {"a": 1}\n', { a: 1 }],
    ['[1, 2]', '[1, 2]'],
    ['"quoted"', '"quoted"'],
    ['{not json', '{not json'],
    ['Hello', 'Hello'],
  ])('%j is %j', (reply, output) => {
    expect(replyOutput(reply)).toEqual(output);
  });
});

describe('ExecutionCompleted version 1 in the log', () => {
  it('is read as version 2 with its result wrapped', () => {
    expect(decodeEvent('ExecutionCompleted', 1, { executionId: 'e', result: 'text', durationMs: 3 })).toEqual({ type: 'ExecutionCompleted', data: { executionId: 'e', result: { text: 'text' }, durationMs: 3 } });
    expect(decodeEvent('ExecutionCompleted', 1, { executionId: 'e', result: { a: 1 }, durationMs: 3 }).data).toMatchObject({ result: { a: 1 } });
  });

  it('an event of a version newer than the code knows is refused, never read with the older schema', () => {
    expect(() => decodeEvent('ExecutionCompleted', 3, { executionId: 'e', result: {}, durationMs: 3 })).toThrow(/version 3 is newer than this code knows/);
  });
});

describe('ExecutionStepCompleted version 1 in the log', () => {
  it('is read as version 2, with no validation errors recorded', () => {
    const v1 = { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'b', iteration: null, output: 1, model: null, usage: null, durationMs: 1, attempts: 1 };
    expect(decodeEvent('ExecutionStepCompleted', 1, v1).data).toEqual({ ...v1, validationErrors: [] });
  });
});

describe('ExecutionRequested versions 1 to 7 in the log', () => {
  it('are read as version 8: a run that belongs to no test run or backtest, reruns nothing, whose tools were not kept, that no schedule and no flow block started', () => {
    const v2 = { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'async', message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [] };
    const v5 = { backtestId: null, tools: null, schedule: null, parent: null };
    expect(decodeEvent('ExecutionRequested', 5, { ...v2, testRunId: null, rerunOf: null, backtestId: 'b', tools: null }).data).toEqual({ ...v2, testRunId: null, rerunOf: null, backtestId: 'b', tools: null, schedule: null, parent: null });
    expect(decodeEvent('ExecutionRequested', 2, v2).data).toEqual({ ...v2, testRunId: null, rerunOf: null, ...v5 });
    expect(decodeEvent('ExecutionRequested', 3, { ...v2, testRunId: 't' }).data).toEqual({ ...v2, testRunId: 't', rerunOf: null, ...v5 });
    expect(decodeEvent('ExecutionRequested', 4, { ...v2, testRunId: null, rerunOf: 'r' }).data).toEqual({ ...v2, testRunId: null, rerunOf: 'r', ...v5 });
    expect(decodeEvent('ExecutionRequested', 1, { ...v2, callbackUrl: undefined, callbackEvents: undefined }).data).toMatchObject({ callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, ...v5 });
  });
});

describe('ExecutionResumed version 1 and TestCaseCreated version 1 in the log', () => {
  it('are read as a resume whose tool results were not kept, and a test case written by hand', () => {
    const resumed = { executionId: 'e', stepIndex: 0, blockName: 'b', iterationsUsed: 1, toolCallIds: ['c'] };
    expect(decodeEvent('ExecutionResumed', 1, resumed).data).toEqual({ ...resumed, toolResults: null });
    const created = { testCaseId: 't', flowId: 'f', organizationId: 'o', projectId: 'p', definition: { name: 'n', input: { message: 'm' }, assertions: [{ type: 'max_tokens', value: 1 }] } };
    expect(decodeEvent('TestCaseCreated', 1, created).data).toEqual({ ...created, fromExecutionId: null });
  });
});

describe('DeliveryAttemptFinished versions 1 and 2 in the log', () => {
  it('is read as version 3, an attempt whose signing secret versions were not recorded, naming no run (its excerpt was stored unsealed)', () => {
    const v1 = { deliveryId: 'd', attempt: 1, outcome: 'succeeded', responseStatus: 200, errorExcerpt: null, nextAttemptAt: null, durationMs: 5 };
    expect(decodeEvent('DeliveryAttemptFinished', 1, v1).data).toEqual({ ...v1, secretVersions: [], executionId: null });
    expect(decodeEvent('DeliveryAttemptFinished', 2, { ...v1, secretVersions: [1] }).data).toEqual({ ...v1, secretVersions: [1], executionId: null });
  });
});
