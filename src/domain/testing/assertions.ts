import { Ajv } from 'ajv';
import { RE2JS } from 're2js';
import { canonicalJson } from '../canonicalJson.ts';
import type { Assertion } from './testCaseDefinition.ts';
import { valueAt } from './resultPath.ts';

/**
 * What a run did, as the assertions see it: its result, how long it took, the tokens it used, and
 * the tool calls its model asked for.
 */
export interface RunObservation {
  result: unknown;
  latencyMs: number;
  tokens: number;
  toolCalls: { name: string; arguments: unknown }[];
}

export interface AssertionResult {
  passed: boolean;
  /** 1 for a pass, 0 for a fail; an llm_judge's own score between. */
  score: number;
  reason: string;
}

const pass = (reason: string): AssertionResult => ({ passed: true, score: 1, reason });
const fail = (reason: string): AssertionResult => ({ passed: false, score: 0, reason });
const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value)?.slice(0, 200));
const textOf = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
const where = (path: string | undefined) => (path ? `result.${path}` : 'the result');

/**
 * Evaluates every assertion but `llm_judge`, which needs a model: the test runner asks the judge and
 * records its verdict. Pure; a user's regular expression runs on RE2 (linear time, it cannot hang).
 */
export function evaluateAssertion(assertion: Exclude<Assertion, { type: 'llm_judge' }>, observed: RunObservation): AssertionResult {
  switch (assertion.type) {
    case 'equals':
    case 'path_equals': {
      const actual = valueAt(observed.result, assertion.path);
      return canonicalJson(actual ?? null) === canonicalJson(assertion.value ?? null) && actual !== undefined
        ? pass(`${where(assertion.path)} equals ${show(assertion.value)}`)
        : fail(`${where(assertion.path)} is ${show(actual)}, expected ${show(assertion.value)}`);
    }
    case 'contains':
    case 'not_contains': {
      const text = textOf(valueAt(observed.result, assertion.path));
      const found = text.includes(assertion.value);
      const wanted = assertion.type === 'contains';
      return found === wanted ? pass(`${where(assertion.path)} ${found ? 'contains' : 'does not contain'} ${show(assertion.value)}`) : fail(`${where(assertion.path)} ${found ? 'contains' : 'does not contain'} ${show(assertion.value)}`);
    }
    case 'regex': {
      let pattern: RE2JS;
      try {
        pattern = RE2JS.compile(assertion.pattern);
      } catch (error) {
        return fail(`the pattern does not compile: ${(error as Error).message}`);
      }
      const text = textOf(valueAt(observed.result, assertion.path));
      return pattern.matcher(text).find() ? pass(`${where(assertion.path)} matches /${assertion.pattern}/`) : fail(`${where(assertion.path)} does not match /${assertion.pattern}/`);
    }
    case 'json_schema': {
      const ajv = new Ajv({ strict: false, allErrors: true });
      let valid: boolean;
      try {
        valid = ajv.validate(assertion.schema, observed.result);
      } catch (error) {
        return fail(`the schema does not compile: ${(error as Error).message}`);
      }
      return valid ? pass('the result matches the schema') : fail(`the result does not match the schema: ${ajv.errorsText(ajv.errors, { dataVar: 'result' })}`);
    }
    case 'number_range': {
      const actual = valueAt(observed.result, assertion.path);
      if (typeof actual !== 'number') return fail(`${where(assertion.path)} is ${show(actual)}, not a number`);
      if (assertion.min !== undefined && actual < assertion.min) return fail(`${where(assertion.path)} is ${actual}, below ${assertion.min}`);
      if (assertion.max !== undefined && actual > assertion.max) return fail(`${where(assertion.path)} is ${actual}, above ${assertion.max}`);
      return pass(`${where(assertion.path)} is ${actual}, within [${assertion.min ?? '-inf'}, ${assertion.max ?? 'inf'}]`);
    }
    case 'max_latency_ms':
      return observed.latencyMs <= assertion.value ? pass(`the run took ${observed.latencyMs} ms`) : fail(`the run took ${observed.latencyMs} ms, more than ${assertion.value}`);
    case 'max_tokens':
      return observed.tokens <= assertion.value ? pass(`the run used ${observed.tokens} tokens`) : fail(`the run used ${observed.tokens} tokens, more than ${assertion.value}`);
    case 'tool_called': {
      const calls = observed.toolCalls.filter((c) => c.name === assertion.name);
      if (calls.length === 0) return fail(`the model never called ${assertion.name}`);
      if (assertion.arguments === undefined) return pass(`the model called ${assertion.name}`);
      const matching = calls.some((c) => canonicalJson(c.arguments) === canonicalJson(assertion.arguments));
      return matching ? pass(`the model called ${assertion.name} with ${show(assertion.arguments)}`) : fail(`the model called ${assertion.name}, but never with ${show(assertion.arguments)}`);
    }
  }
}
