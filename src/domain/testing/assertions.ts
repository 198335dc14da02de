import { Ajv } from 'ajv';
import { RE2JS } from 're2js';
import { canonicalJson } from '../canonicalJson.ts';
import type { Assertion } from './testCaseDefinition.ts';
import { valueAt } from './resultPath.ts';

/**
 * What a run did, as the assertions see it: its result, how long it took, the tokens it used, and
 * the tool calls its model asked for; and the same of each block, by name.
 */
export interface RunObservation {
  result: unknown;
  latencyMs: number;
  tokens: number;
  toolCalls: { name: string; arguments: unknown }[];
  steps: Readonly<Record<string, StepObservation>>;
}

/** One block in a run: whether it ran (a loop's: all its items), was skipped, failed or never ended, and what it produced. */
export interface StepObservation {
  status: 'completed' | 'skipped' | 'failed' | 'started';
  /** Its output (a loop's: its items' results in order; null when it did not complete). */
  output: unknown;
  durationMs: number;
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
/** What an assertion is about, in its reasons: the run's result, or a block's output. */
interface Subject {
  /** `result`, or `steps.<block>.output`. */
  value: string;
  /** `the run`, or `block '<name>'`. */
  actor: string;
}
const RUN: Subject = { value: 'result', actor: 'the run' };

/** The observation an assertion with `step` checks: that block's, as if it were the run (null when the block cannot be checked, with why). */
export function stepObserved(observed: RunObservation, step: string): { observed: RunObservation; subject: Subject } | { problem: string } {
  const block = Object.hasOwn(observed.steps, step) ? observed.steps[step]! : undefined;
  if (!block) return { problem: `block '${step}' neither ran nor was skipped in this run` };
  if (block.status === 'skipped') return { problem: `block '${step}' was skipped (its run_if was not true)` };
  if (block.status !== 'completed') return { problem: `block '${step}' did not complete (${block.status})` };
  return { observed: { result: block.output, latencyMs: block.durationMs, tokens: block.tokens, toolCalls: block.toolCalls, steps: {} }, subject: { value: `steps.${step}.output`, actor: `block '${step}'` } };
}

/**
 * Evaluates every assertion but `llm_judge`, which needs a model: the test runner asks the judge and
 * records its verdict. With `step`, the assertion checks that block's output, time, tokens and tool
 * calls, and its reason names the block. Pure; a user's regular expression runs on RE2 (linear
 * time, it cannot hang).
 */
export function evaluateAssertion(assertion: Exclude<Assertion, { type: 'llm_judge' }>, observed: RunObservation): AssertionResult {
  if (assertion.type === 'step_skipped' || assertion.type === 'step_ran') {
    const status = Object.hasOwn(observed.steps, assertion.step) ? observed.steps[assertion.step]!.status : null;
    const said = status === null ? 'neither ran nor was skipped' : status === 'completed' ? 'ran' : status === 'skipped' ? 'was skipped' : status === 'failed' ? 'failed' : 'did not finish';
    const wanted = assertion.type === 'step_skipped' ? 'skipped' : 'completed';
    return status === wanted ? pass(`block '${assertion.step}' ${said}`) : fail(`block '${assertion.step}' ${said}, expected it to ${assertion.type === 'step_skipped' ? 'be skipped' : 'run'}`);
  }
  if (assertion.step === undefined) return evaluateOn(assertion, observed, RUN);
  const target = stepObserved(observed, assertion.step);
  return 'problem' in target ? fail(target.problem) : evaluateOn(assertion, target.observed, target.subject);
}

function evaluateOn(assertion: Exclude<Assertion, { type: 'llm_judge' | 'step_skipped' | 'step_ran' }>, observed: RunObservation, subject: Subject): AssertionResult {
  const where = (path: string | undefined) => (path ? `${subject.value}.${path}` : subject === RUN ? 'the result' : subject.value);
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
      return valid ? pass(`${where(undefined)} matches the schema`) : fail(`${where(undefined)} does not match the schema: ${ajv.errorsText(ajv.errors, { dataVar: subject.value })}`);
    }
    case 'number_range': {
      const actual = valueAt(observed.result, assertion.path);
      if (typeof actual !== 'number') return fail(`${where(assertion.path)} is ${show(actual)}, not a number`);
      if (assertion.min !== undefined && actual < assertion.min) return fail(`${where(assertion.path)} is ${actual}, below ${assertion.min}`);
      if (assertion.max !== undefined && actual > assertion.max) return fail(`${where(assertion.path)} is ${actual}, above ${assertion.max}`);
      return pass(`${where(assertion.path)} is ${actual}, within [${assertion.min ?? '-inf'}, ${assertion.max ?? 'inf'}]`);
    }
    case 'max_latency_ms':
      return observed.latencyMs <= assertion.value ? pass(`${subject.actor} took ${observed.latencyMs} ms`) : fail(`${subject.actor} took ${observed.latencyMs} ms, more than ${assertion.value}`);
    case 'max_tokens':
      return observed.tokens <= assertion.value ? pass(`${subject.actor} used ${observed.tokens} tokens`) : fail(`${subject.actor} used ${observed.tokens} tokens, more than ${assertion.value}`);
    case 'tool_called': {
      const calls = observed.toolCalls.filter((c) => c.name === assertion.name);
      if (calls.length === 0) return fail(`the model never called ${assertion.name}${subject === RUN ? '' : ` in ${subject.actor}`}`);
      if (assertion.arguments === undefined) return pass(`the model called ${assertion.name}`);
      const matching = calls.some((c) => canonicalJson(c.arguments) === canonicalJson(assertion.arguments));
      return matching ? pass(`the model called ${assertion.name} with ${show(assertion.arguments)}`) : fail(`the model called ${assertion.name}, but never with ${show(assertion.arguments)}`);
    }
  }
}
