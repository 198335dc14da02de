import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/decider.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { canonicalJson } from '../../src/domain/canonicalJson.ts';
import { conversationDigest } from '../../src/domain/tools/conversationDigest.ts';
import { checkTools } from '../../src/domain/tools/toolRules.ts';

const conversation = [
  { role: 'user', content: 'weather?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }] },
];
const requested: ExecutionEvent = {
  type: 'ExecutionRequested',
  data: { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
};
const paused: ExecutionEvent = {
  type: 'ExecutionPausedForToolCalls',
  data: { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'agent', iterationsUsed: 1, toolCalls: [{ id: 'c1', name: 'w', arguments: '{}' }], messagesDigest: conversationDigest(conversation), messageCount: 2 },
};
const resume = (messages: unknown[], pausedAtStep = 'agent', flowId = 'f') => execution.decide({ type: 'Resume', data: { pausedAtStep, toolCallMessages: messages }, flowId }, fold(execution, [requested, paused]));
const result = { role: 'tool', tool_call_id: 'c1', content: 'sunny' };

describe('resuming a tool pause (decider)', () => {
  it('Given a pause, When the results answer every call over the recorded conversation, Then ExecutionResumed, recording each result', () => {
    expect(resume([...conversation, result])).toEqual([
      { type: 'ExecutionResumed', data: { executionId: 'e', stepIndex: 0, blockName: 'agent', iterationsUsed: 1, toolCallIds: ['c1'], toolResults: [{ toolCallId: 'c1', name: 'w', content: 'sunny' }] } },
    ]);
  });

  it('refuses another step, another flow, a changed history and mismatched results with their codes', () => {
    expect(() => resume([...conversation, result], 'other')).toThrow(expect.objectContaining({ code: 'EXECUTION_ID_INVALID' }));
    expect(() => resume([...conversation, result], 'agent', 'other-flow')).toThrow(expect.objectContaining({ code: 'EXECUTION_ID_INVALID' }));
    expect(() => resume([{ ...conversation[0], content: 'changed' }, conversation[1], result])).toThrow(expect.objectContaining({ code: 'TOOL_HISTORY_TAMPERED' }));
    expect(() => resume([...conversation])).toThrow(expect.objectContaining({ code: 'TOOL_RESULTS_MISMATCH' }));
    expect(() => resume([...conversation, result, result])).toThrow(expect.objectContaining({ code: 'TOOL_RESULTS_MISMATCH' }));
  });

  it('refuses a second resume of the same pause', () => {
    const state = fold(execution, [requested, paused, ...resume([...conversation, result])]);
    expect(() => execution.decide({ type: 'Resume', data: { pausedAtStep: 'agent', toolCallMessages: [...conversation, result] }, flowId: 'f' }, state)).toThrow(
      expect.objectContaining({ code: 'EXECUTION_ID_INVALID' }),
    );
  });
});

describe('conversation digest', () => {
  it('does not depend on key order, and changes with any content', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe('{"a":[{"x":1,"y":2}],"b":1}');
    const reordered = [{ content: 'weather?', role: 'user' }, { tool_calls: conversation[1]!.tool_calls, content: null, role: 'assistant' }];
    expect(conversationDigest(reordered)).toBe(conversationDigest(conversation));
    expect(conversationDigest([{ role: 'user', content: 'weather!' }, conversation[1]])).not.toBe(conversationDigest(conversation));
  });
});

describe('tool rules', () => {
  it('accepts the spec shapes and defaults toolChoice to auto', () => {
    expect(checkTools([{ type: 'function', function: { name: 'get_weather', description: 'd', parameters: { type: 'object' } } }], undefined)).toMatchObject({ toolChoice: 'auto' });
    expect(checkTools([{ type: 'function', function: { name: '_x-1' } }], { type: 'function', function: { name: '_x-1' } }).toolChoice).toEqual({ type: 'function', function: { name: '_x-1' } });
  });

  it('refuses parameters that are not an object schema, which providers refuse', () => {
    for (const parameters of [{ type: 'string' }, { properties: {} }, []]) {
      expect(() => checkTools([{ type: 'function', function: { name: 'f', parameters } }], undefined)).toThrow(expect.objectContaining({ code: 'TOOLS_INVALID' }));
    }
  });
});
