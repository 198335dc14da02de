import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type StoredBlock, type StoredStep, flowFileSchema } from '../../src/domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { createRunConditions } from '../../src/execution/runConditions.ts';
import type { RunSession } from '../../src/execution/runContext.ts';
import { runSwitch, runWhileLoop } from '../../src/execution/stepShapes.ts';
import { describeIssues } from '../../src/domain/validation/issuePath.ts';

const block = (name: string, extra: Record<string, unknown> = {}): StoredBlock => ({ id: name, name, processor_type: 'passthrough', ...extra });
const fileProblems = (steps: unknown[]) => {
  const parsed = flowFileSchema.safeParse({ slug: 'f', name: 'F', steps });
  return parsed.success ? [] : describeIssues(parsed.error.issues);
};

/** A session the step shapes run in, without a database: real conditions, the recorder's notes kept. */
function sessionOf(completed?: Map<string, unknown>) {
  const noted: ExecutionEvent[] = [];
  const run = { executionId: 'e', accumulated: {} as Record<string, unknown>, completed, recorder: { note: (event: ExecutionEvent) => noted.push(event) } };
  const session = { deps: { conditions: createRunConditions() }, run } as unknown as RunSession;
  return { session, noted, run };
}
const context = (parameters: Record<string, unknown>, previous: unknown = null) => ({ message: 'm', previous_output: previous, parameters, steps: {} });

describe('switch steps and while loops in the flow file', () => {
  it('takes a switch of cases and a default, and a loop with while and max_iterations', () => {
    expect(fileProblems([{ switch: { cases: [{ when: "input.parameters.kind = 'refund'", block: { name: 'refund', processor_type: 'passthrough' } }], default: { name: 'other', processor_type: 'passthrough' } } }])).toEqual([]);
    expect(fileProblems([{ loop: { while: 'previous_output.score < 8', max_iterations: 5, block: { name: 'improve', processor_type: 'passthrough' } } }])).toEqual([]);
  });

  it('refuses a while loop without max_iterations, one over and while together, and max_iterations on an array loop', () => {
    const b = { name: 'b', processor_type: 'passthrough' };
    expect(fileProblems([{ loop: { while: 'true', block: b } }])).toEqual(['steps[0].loop.max_iterations: a while loop needs max_iterations (1-100)']);
    expect(fileProblems([{ loop: { while: 'true', over: 'parameters.xs', max_iterations: 2, block: b } }])).toEqual(['steps[0].loop: a loop has exactly one of over (an array) or while (a condition)']);
    expect(fileProblems([{ loop: { over: 'parameters.xs', max_iterations: 2, block: b } }])).toEqual(['steps[0].loop.max_iterations: only a while loop has max_iterations (a loop over an array runs once per item)']);
    expect(fileProblems([{ loop: { while: 'true', max_iterations: 101, block: b } }])[0]).toContain('steps[0].loop.max_iterations');
    expect(fileProblems([{ switch: { cases: [] } }])[0]).toContain('steps[0].switch.cases');
  });
});

describe('switch steps and while loops at publish', () => {
  const sw = (cases: { when: string; block: StoredBlock }[], otherwise?: StoredBlock): StoredStep => ({ switch: { cases, ...(otherwise ? { default: otherwise } : {}) } });

  it('checks every case condition and the while condition as run_if conditions are checked', () => {
    expect(validateFlowForPublish([sw([{ when: '$count(input.parameters)', block: block('a') }])])).toEqual(['steps[0].switch.cases[0].when: the condition calls $count(); a condition calls only $not() and $exists()']);
    expect(validateFlowForPublish([{ loop: { while: 'previous_output.n +', max_iterations: 3, block: block('a') } }])[0]).toMatch(/^steps\[0\]\.loop\.while: the condition does not parse/);
  });

  it('refuses references between branches (at most one runs), a case reading its own step, a while reading its own block, and run_if on a branch', () => {
    const first = block('first');
    expect(validateFlowForPublish([{ block: first }, sw([{ when: "steps.first.output = 'x'", block: block('a') }], block('b', { processor_type: 'code', code: 'return input.steps.a;' }))])).toEqual([
      "steps[1].switch.default (block 'b'): the reference steps.a cannot be read: that block is another branch of the same switch (at most one branch runs); a block reads only blocks of earlier steps",
    ]);
    expect(validateFlowForPublish([sw([{ when: "steps.a.output = 'x'", block: block('a') }])])).toEqual(["steps[0].switch.cases[0].when: the reference steps.a cannot be read: that block is a branch of this switch; a condition reads only blocks of earlier steps"]);
    expect(validateFlowForPublish([{ loop: { while: 'steps.a.output = null', max_iterations: 2, block: block('a') } }])).toEqual(["steps[0].loop.while: the reference steps.a cannot be read: that is the loop's own block: its last iteration is previous_output; a condition reads only blocks of earlier steps"]);
    expect(validateFlowForPublish([sw([{ when: 'true', block: block('a', { run_if: 'true' }) }])])).toEqual(["steps[0].switch.cases[0].block (block 'a').run_if: a switch's block runs when its case is chosen: its condition is the case's when"]);
  });

  it('lets a later step read a branch (null when another ran), and an approval or a tool-enabled block be a branch', () => {
    const approval = block('ask', { processor_type: 'approval', processor_config: { approval: { text: 'ok?', approvers: { roles: ['admin'] } } } });
    const later = block('later', { processor_type: 'code', code: 'return input.steps.a ?? input.steps.ask;' });
    expect(validateFlowForPublish([sw([{ when: 'input.parameters.big = true', block: approval }], block('a')), { block: later }])).toEqual([]);
  });
});

describe('a switch at run time', () => {
  it('property: the first case that holds runs (else the default, else none); every other block is recorded skipped once, with what it read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.boolean(), async (truths, withDefault) => {
        const cases = truths.map((_t, i) => ({ when: `input.parameters.c${i} = true`, block: block(`case${i}`) }));
        const step = { cases, ...(withDefault ? { default: block('fallback') } : {}) };
        const parameters = Object.fromEntries(truths.map((t, i) => [`c${i}`, t]));
        const { session, noted } = sessionOf();
        const ran: string[] = [];
        const output = await runSwitch(session, step, context(parameters), 2, async (_s, b) => (ran.push(b.name), `out of ${b.name}`), undefined, false);
        const first = truths.indexOf(true);
        const chosen = first >= 0 ? `case${first}` : withDefault ? 'fallback' : null;
        expect(ran).toEqual(chosen ? [chosen] : []);
        expect(output).toBe(chosen ? `out of ${chosen}` : null);
        const skipped = noted.map((e) => e.data as { blockName: string; condition: string; values: Record<string, unknown>; branch: { chosen: string | null; evaluated: boolean } });
        const all = [...cases.map((c) => c.block.name), ...(withDefault ? ['fallback'] : [])];
        expect(skipped.map((s) => s.blockName)).toEqual(all.filter((name) => name !== chosen));
        for (const s of skipped) {
          const index = s.blockName === 'fallback' ? truths.length : Number(s.blockName.slice(4));
          const evaluated = s.blockName !== 'fallback' && (first < 0 || index < first);
          expect(s.branch).toEqual({ chosen, evaluated });
          expect(s.values).toEqual(evaluated ? { [`input.parameters.c${index}`]: false } : {});
          expect(s.condition).toBe(s.blockName === 'fallback' ? 'default' : `input.parameters.c${index} = true`);
        }
      }),
    );
  });

  it('decides again the same way when a run is taken over, recording nothing twice', async () => {
    const step = { cases: [{ when: 'input.parameters.n > 5', block: block('big') }], default: block('small') };
    const completed = new Map<string, unknown>([['0|big|', null]]);
    const { session, noted } = sessionOf(completed);
    expect(await runSwitch(session, step, context({ n: 1 }), 0, async (_s, b) => b.name, undefined, false)).toBe('small');
    expect(noted).toEqual([]);
  });

  it('fails the run at the case whose condition cannot be decided (RUN_IF_FAILED)', async () => {
    const step = { cases: [{ when: "input.parameters.n > 'x'", block: block('big') }] };
    const { session } = sessionOf();
    await expect(runSwitch(session, step, context({ n: 1 }), 0, async () => 1, undefined, false)).rejects.toMatchObject({ code: 'RUN_IF_FAILED', blockName: 'big' });
  });
});

describe('a while loop at run time', () => {
  const loop = (max: number) => ({ while: '$not($exists(previous_output.done)) or previous_output.done = false', max_iterations: max, block: block('work') });

  it('runs while the condition holds on the last iteration’s output, and stops at max_iterations', async () => {
    const { session } = sessionOf();
    const seen: unknown[] = [];
    const work = async (_s: RunSession, _b: StoredBlock, ctx: { previous_output: unknown }, _i: number, iteration: number | null) => (seen.push(ctx.previous_output), { n: iteration, done: iteration === 2 });
    expect(await runWhileLoop(session, loop(10), context({}, { start: true }), 0, work as never)).toEqual([{ n: 0, done: false }, { n: 1, done: false }, { n: 2, done: true }]);
    expect(seen).toEqual([{ start: true }, { n: 0, done: false }, { n: 1, done: false }]);
    expect(await runWhileLoop(session, loop(2), context({}), 0, (async (_s: RunSession, _b: StoredBlock, _c: unknown, _i: number, iteration: number | null) => ({ n: iteration, done: false })) as never)).toHaveLength(2);
  });

  it('property: never more than max_iterations, and exactly up to the first output that ends it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { maxLength: 12 }), fc.integer({ min: 1, max: 10 }), async (dones, max) => {
        const { session } = sessionOf();
        const results = await runWhileLoop(session, loop(max), context({}), 0, (async (_s: RunSession, _b: StoredBlock, _c: unknown, _i: number, iteration: number | null) => ({ done: dones[iteration!] ?? false })) as never);
        const firstDone = dones.findIndex((d) => d);
        expect(results).toHaveLength(Math.min(max, firstDone >= 0 ? firstDone + 1 : max));
      }),
    );
  });
});
