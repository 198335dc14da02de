import { describe, expect, it } from 'vitest';
import { evaluateAssertion, type RunObservation } from '../../src/domain/testing/assertions.ts';
import { valueAt } from '../../src/domain/testing/resultPath.ts';
import { testCase } from '../../src/domain/testing/testCase.ts';
import type { Assertion } from '../../src/domain/testing/testCaseDefinition.ts';
import { parseTestCase } from '../../src/testing/testCases.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const observed: RunObservation = {
  result: { overall_score: 72, issues: [{ category: 'grammar', excerpt: 'he go' }], summary: 'One grammar issue.' },
  latencyMs: 840,
  tokens: 315,
  toolCalls: [{ name: 'lookup', arguments: { word: 'go' } }],
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
