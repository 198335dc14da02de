import { describe, expect, it } from 'vitest';
import { evaluateAssertion, type RunObservation } from '../../src/domain/testing/assertions.ts';
import { valueAt } from '../../src/domain/testing/resultPath.ts';
import { testCase } from '../../src/domain/testing/testCase.ts';
import type { Assertion } from '../../src/domain/testing/testCaseDefinition.ts';
import { parseTestCase } from '../../src/testing/testCases.ts';
import { junitReport } from '../../src/testing/junitReport.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const observed: RunObservation = {
  result: { overall_score: 72, issues: [{ category: 'grammar', excerpt: 'he go' }], summary: 'One grammar issue.' },
  latencyMs: 840,
  tokens: 315,
  toolCalls: [{ name: 'lookup', arguments: { word: 'go' } }],
  steps: {
    route: { status: 'completed', output: { queue: 'billing', urgent: false }, durationMs: 120, tokens: 40, toolCalls: [] },
    agent: { status: 'completed', output: 'done', durationMs: 700, tokens: 275, toolCalls: [{ name: 'lookup', arguments: { word: 'go' } }] },
    escalate: { status: 'skipped', output: null, durationMs: 0, tokens: 0, toolCalls: [] },
    broken: { status: 'failed', output: null, durationMs: 5, tokens: 0, toolCalls: [] },
  },
};
type Evaluable = Exclude<Assertion, { type: 'llm_judge' }>;

describe('assertions on a run', () => {
  it.each<[Evaluable, boolean]>([
    [{ type: 'equals', value: observed.result }, true],
    [{ type: 'equals', path: 'overall_score', value: 72 }, true],
    [{ type: 'equals', path: 'overall_score', value: 73 }, false],
    [{ type: 'equals', path: 'missing', value: null }, false],
    [{ type: 'contains', path: 'summary', value: 'grammar' }, true],
    [{ type: 'contains', value: 'vocabulary' }, false],
    [{ type: 'not_contains', value: 'vocabulary' }, true],
    [{ type: 'not_contains', path: 'issues[0].excerpt', value: 'go' }, false],
    [{ type: 'regex', path: 'summary', pattern: '^One \\w+ issue\\.$' }, true],
    [{ type: 'regex', path: 'summary', pattern: '^Two' }, false],
    [{ type: 'json_schema', schema: { type: 'object', required: ['overall_score'] } }, true],
    [{ type: 'json_schema', schema: { type: 'object', required: ['translation'] } }, false],
    [{ type: 'path_equals', path: 'issues[0].category', value: 'grammar' }, true],
    [{ type: 'path_equals', path: 'issues[1].category', value: 'grammar' }, false],
    [{ type: 'number_range', path: 'overall_score', min: 0, max: 100 }, true],
    [{ type: 'number_range', path: 'overall_score', min: 80 }, false],
    [{ type: 'number_range', path: 'summary', max: 1 }, false],
    [{ type: 'max_latency_ms', value: 1000 }, true],
    [{ type: 'max_latency_ms', value: 500 }, false],
    [{ type: 'max_tokens', value: 315 }, true],
    [{ type: 'max_tokens', value: 300 }, false],
    [{ type: 'tool_called', name: 'lookup' }, true],
    [{ type: 'tool_called', name: 'lookup', arguments: { word: 'go' } }, true],
    [{ type: 'tool_called', name: 'lookup', arguments: { word: 'went' } }, false],
    [{ type: 'tool_called', name: 'translate' }, false],
  ])('%j passes: %s', (assertion, passed) => {
    const result = evaluateAssertion(assertion, observed);
    expect(result).toEqual({ passed, score: passed ? 1 : 0, reason: expect.any(String) });
  });

  it.each<[Evaluable, boolean, string]>([
    [{ type: 'path_equals', step: 'route', path: 'queue', value: 'billing' }, true, 'steps.route.output.queue equals "billing"'],
    // The right final answer does not hide a wrong intermediate classification.
    [{ type: 'path_equals', step: 'route', path: 'urgent', value: true }, false, 'steps.route.output.urgent is false, expected true'],
    [{ type: 'equals', step: 'agent', value: 'done' }, true, 'steps.agent.output equals "done"'],
    [{ type: 'json_schema', step: 'route', schema: { type: 'object', required: ['priority'] } }, false, "steps.route.output does not match the schema: steps.route.output must have required property 'priority'"],
    [{ type: 'max_tokens', step: 'route', value: 50 }, true, "block 'route' used 40 tokens"],
    [{ type: 'max_latency_ms', step: 'agent', value: 500 }, false, "block 'agent' took 700 ms, more than 500"],
    [{ type: 'tool_called', step: 'route', name: 'lookup' }, false, "the model never called lookup in block 'route'"],
    [{ type: 'tool_called', step: 'agent', name: 'lookup', arguments: { word: 'go' } }, true, 'the model called lookup with {"word":"go"}'],
    [{ type: 'contains', step: 'escalate', value: 'x' }, false, "block 'escalate' was skipped (its run_if was not true)"],
    [{ type: 'contains', step: 'broken', value: 'x' }, false, "block 'broken' did not complete (failed)"],
    [{ type: 'contains', step: 'ghost', value: 'x' }, false, "block 'ghost' neither ran nor was skipped in this run"],
    [{ type: 'step_skipped', step: 'escalate' }, true, "block 'escalate' was skipped"],
    [{ type: 'step_skipped', step: 'route' }, false, "block 'route' ran, expected it to be skipped"],
    [{ type: 'step_ran', step: 'route' }, true, "block 'route' ran"],
    [{ type: 'step_ran', step: 'escalate' }, false, "block 'escalate' was skipped, expected it to run"],
    [{ type: 'step_ran', step: 'broken' }, false, "block 'broken' failed, expected it to run"],
    [{ type: 'step_ran', step: 'ghost' }, false, "block 'ghost' neither ran nor was skipped, expected it to run"],
  ])('on a step: %j passes: %s (%s)', (assertion, passed, reason) => {
    expect(evaluateAssertion(assertion, observed)).toEqual({ passed, score: passed ? 1 : 0, reason });
  });

  it('runs a pattern that would take a backtracking engine exponential time in linear time', () => {
    const result = evaluateAssertion({ type: 'regex', pattern: '(a+)+$' }, { ...observed, result: `${'a'.repeat(5000)}!` });
    expect(result.passed).toBe(false);
    expect(evaluateAssertion({ type: 'regex', pattern: '(unclosed' }, observed)).toMatchObject({ passed: false, reason: expect.stringContaining('does not compile') });
  });

  it('looks up restricted paths only, and own properties only', () => {
    expect(valueAt({ a: [{ b: 1 }] }, 'a[0].b')).toBe(1);
    expect(valueAt({}, 'constructor')).toBeUndefined();
    expect(() => valueAt({}, 'a[?(@.b)]')).toThrow();
  });
});

describe('test case definitions', () => {
  const valid = { name: 'grammar', input: { message: 'he go' }, assertions: [{ type: 'contains', value: 'grammar' }] };

  it('accepts a valid case', () => {
    expect(parseTestCase(valid)).toEqual(valid);
  });

  it.each([
    [{ ...valid, assertions: [] }, 'assertions'],
    [{ ...valid, assertions: [{ type: 'sounds_right' }] }, 'assertions[0].type'],
    [{ ...valid, assertions: [{ type: 'path_equals', path: 'a[?(x)]', value: 1 }] }, 'assertions[0].path'],
    [{ ...valid, assertions: [{ type: 'regex' }] }, 'assertions[0].pattern'],
    [{ ...valid, input: { message: 1 } }, 'input.message'],
    [{ ...valid, colour: 'red' }, 'colour'],
    [{ ...valid, assertions: [{ type: 'contains', value: 'x', step: 'not a name' }] }, 'assertions[0].step'],
    [{ ...valid, assertions: [{ type: 'step_ran' }] }, 'assertions[0].step'],
  ])('refuses %j naming %s', (input, path) => {
    expect(() => parseTestCase(input)).toThrow(expect.objectContaining({ code: 'TEST_CASE_INVALID', message: expect.stringContaining(path) }));
  });
});

describe('the test case decider', () => {
  const spec = deciderSpec(testCase);
  const definition = parseTestCase({ name: 'n', input: { message: 'm' }, assertions: [{ type: 'max_tokens', value: 10 }] });
  const created = { type: 'TestCaseCreated' as const, data: { testCaseId: 't', flowId: 'f', organizationId: 'o', projectId: 'p', definition, fromExecutionId: null } };

  it('creates, updates and deletes; a deleted case is gone', () => {
    spec.given([]).when({ type: 'CreateTestCase', data: created.data }).then([created]);
    spec.given([created]).when({ type: 'UpdateTestCase', data: { definition: { ...definition, name: 'renamed' } } }).then([{ type: 'TestCaseUpdated', data: { testCaseId: 't', flowId: 'f', definition: { ...definition, name: 'renamed' } } }]);
    spec.given([created]).when({ type: 'DeleteTestCase' }).then([{ type: 'TestCaseDeleted', data: { testCaseId: 't', flowId: 'f' } }]);
    spec.given([created, { type: 'TestCaseDeleted', data: { testCaseId: 't', flowId: 'f' } }]).when({ type: 'UpdateTestCase', data: { definition } }).thenRefuses('TEST_CASE_NOT_FOUND');
    spec.given([created]).when({ type: 'CreateTestCase', data: created.data }).thenRefuses('CONFLICT');
  });
});

describe('the JUnit report of a suite', () => {
  it("names the block a failed assertion checked, beside the run's own failures", () => {
    const run = { name: 'routes billing', latencyMs: 1500, passed: false, runStatus: 'completed' as const, results: [{ type: 'path_equals', step: 'route', passed: false, score: 0, reason: 'steps.route.output.queue is "sales", expected "billing"' }, { type: 'contains', passed: true, score: 1, reason: 'ok' }] };
    const xml = junitReport({ flowSlug: 'triage', target: 'version 2', runs: [run as never] });
    expect(xml).toContain('<failure message="path_equals (step route): steps.route.output.queue is &quot;sales&quot;, expected &quot;billing&quot;"');
  });
});
