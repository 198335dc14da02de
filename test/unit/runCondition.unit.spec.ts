import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ConditionContext, compileRunCondition, parseRunCondition } from '../../src/domain/flows/runCondition.ts';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';

const context: ConditionContext = {
  input: { message: 'I was charged twice', parameters: { tier: 'gold', vip: true, limit: 3 } },
  steps: { route: { output: { queue: 'billing', urgent: false, score: 0.7, tags: ['refund', 'card'] } }, skipped: { output: null }, items: { output: [{ n: 2 }, { n: 5 }] } },
  previous_output: { text: 'hello' },
};
const decide = (condition: string) => compileRunCondition(condition)(context);

describe('run_if: the condition language (a checked part of JSONata)', () => {
  it.each([
    ['steps.route.output.queue = "billing"', true],
    ["steps.route.output.queue != 'billing'", false],
    ['steps.route.output.score >= 0.5 and steps.route.output.score < 1', true],
    ['steps.route.output.urgent or input.parameters.vip', true],
    ['$not(steps.route.output.urgent)', true],
    ['"refund" in steps.route.output.tags', true],
    ['input.parameters.tier in ["gold", "platinum"]', true],
    ['$exists(input.parameters.vip) and $not($exists(input.parameters.nothing))', true],
    ['steps.items.output[1].n > input.parameters.limit', true],
    ['(steps.route.output.queue = "sales" or steps.route.output.queue = "billing") and -1 < input.parameters.limit', true],
    ['previous_output.text = "hello"', true],
    ['input.message = "I was charged twice"', true],
    // An absent field, or one of a skipped block (null), compares as not equal: the block is skipped, not failed.
    ['steps.route.output.missing = "x"', false],
    ['steps.skipped.output.queue = "billing"', false],
    ['input.parameters.nothing', false],
    ['true', true],
  ])('%s decides %s', async (condition, run) => {
    expect(parseRunCondition(condition)).toMatchObject({ ok: true });
    expect(await decide(condition)).toMatchObject({ ok: true, run });
  });

  it('records the value of every path the condition read (null when absent)', async () => {
    expect(await decide('steps.route.output.queue = "billing" and $exists(input.parameters.nothing) or steps.items.output[0].n = 2')).toEqual({
      ok: true,
      run: true,
      values: { 'steps.route.output.queue': 'billing', 'input.parameters.nothing': null, 'steps.items.output[0].n': 2 },
    });
  });

  it.each([
    ['$sum(steps.items.output.n) > 1', 'calls $sum(); a condition calls only $not() and $exists()'],
    ['$x = 1', 'uses a variable'],
    ['function($x) { $x }', 'uses a function definition'],
    ['steps.route.output.queue ~> $uppercase', 'uses the ~> operator'],
    ['steps.items.output[n > 1]', 'filters a path'],
    ['steps.route.output.*', 'uses a wildcard in a path'],
    ['steps.route.output.score + 1 > 2', 'uses the operator +'],
    ['"a" & "b" = "ab"', 'uses the operator &'],
    ['steps.route.output.urgent ? true : false', 'uses a ? : choice'],
    ['/bill/', 'uses a regular expression'],
    ['process.env.HOME = "x"', 'reads process; a condition reads input.message'],
    ['steps.route.queue = "billing"', "a block's output is read as steps.<block>.output"],
    ['steps.route.output.queue = ', 'does not parse'],
    ['', 'is empty'],
    ['x'.repeat(2001), 'is longer than 2000 characters'],
  ])('refuses %s: %s', (condition, problem) => {
    const parsed = parseRunCondition(condition);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problem).toContain(problem);
  });

  it('fails a run whose condition gives something other than true or false, or compares two types', async () => {
    expect(await decide('steps.route.output.queue')).toEqual({ ok: false, message: 'run_if gave a value that is not true or false', detail: '"billing"' });
    expect(await decide('steps.route.output.queue > 1')).toMatchObject({ ok: false, message: 'run_if could not be evaluated', detail: expect.any(String) });
  });

  it('property: any string either parses to a checked condition or is refused with a reason, never throws; a checked one decides or fails, never throws', async () => {
    const pieces = fc.constantFrom('steps.route.output.queue', 'input.parameters.tier', '"billing"', '1', 'true', 'null', '=', '!=', '<', 'and', 'or', 'in', '$not(', '$exists(', ')', '(', '[', ']', ',', '$sum(', '.', '*', '?', ':', '$x', '\u0000', '\ud800', '🙂', '`a-b`');
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.array(pieces, { maxLength: 12 }).map((p) => p.join(' '))), async (text) => {
        const parsed = parseRunCondition(text);
        if (!parsed.ok) {
          expect(parsed.problem.length).toBeGreaterThan(0);
          expect(await compileRunCondition(text)(context)).toMatchObject({ ok: false });
          return;
        }
        const outcome = await compileRunCondition(text)(context);
        if (outcome.ok) expect(typeof outcome.run).toBe('boolean');
        else expect(outcome.message).toMatch(/^run_if /);
      }),
      { numRuns: 300 },
    );
  });

  it('property: a comparison of a parameter with a literal decides as JavaScript would', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 }), fc.constantFrom('=', '!=', '<', '<=', '>', '>='), async (value, literal, op) => {
        const outcome = await compileRunCondition(`input.parameters.n ${op} ${literal}`)({ ...context, input: { message: null, parameters: { n: value } } });
        const expected = { '=': value === literal, '!=': value !== literal, '<': value < literal, '<=': value <= literal, '>': value > literal, '>=': value >= literal }[op];
        expect(outcome).toEqual({ ok: true, run: expected, values: { 'input.parameters.n': value } });
      }),
      { numRuns: 200 },
    );
  });
});

describe('run_if at publish', () => {
  const passthrough = (name: string, run_if?: string) => ({ id: name, name, processor_type: 'passthrough' as const, ...(run_if === undefined ? {} : { run_if }) });

  it('refuses a condition that does not parse or reads a block that cannot have run, with its path', () => {
    const steps: StoredStep[] = [
      { block: passthrough('route') },
      { block: passthrough('escalate', 'steps.route.output.urgent = true and steps.later.output.x = 1') },
      { parallel: [passthrough('a'), passthrough('b', '$sum(1) = 1')], run_if: 'steps.a.output = 1' },
      { block: passthrough('later') },
    ];
    expect(validateFlowForPublish(steps)).toEqual([
      "steps[2].parallel[1] (block 'b').run_if: the condition calls $sum(); a condition calls only $not() and $exists()",
      "steps[1].block (block 'escalate'): the reference steps.later cannot be read: that block runs later (steps[3]); a block reads only blocks of earlier steps",
      'steps[2].run_if: the reference steps.a cannot be read: that block is in this parallel step; a condition reads only blocks of earlier steps',
    ]);
  });
});
