import { describe, expect, it } from 'vitest';
import type { StoredBlock, StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { codeReferences } from '../../src/domain/blocks/code/codeReferences.ts';
import { stepReferenceProblems } from '../../src/domain/flows/stepReferences.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';

const llm = (name: string, prompt: string): StoredBlock => ({ id: name, name, processor_type: 'llm', prompt });
const code = (name: string, source: string): StoredBlock => ({ id: name, name, processor_type: 'code', code: source });

describe("a code block's references to earlier blocks", () => {
  it.each([
    ['return input.steps.route.queue;', ['route'], false],
    ["return input.steps['triage-1'].queue + input['steps'].route;", ['triage-1', 'route'], false],
    ['// input.steps.later is only a comment\nreturn "input.steps.text" + input.message + input.parameters.x + input.previous_output;', [], false],
    ['const steps = [1, 2]; return steps.length;', [], false],
  ])('%s reads %j', (source, names, all) => {
    expect(codeReferences(source)).toEqual({ names, all });
  });

  it.each([
    ['return input.steps[input.parameters.which];'],
    ['return Object.keys(input.steps);'],
    ['const { steps } = input; return steps.route;'],
    ['return helper(input); function helper(x) { return x.steps.route; }'],
    ['const copy = { input }; return copy.input.steps.route;'],
    ['return input[name];'],
  ])('%s reads every earlier block (parsing cannot follow it)', (source) => {
    expect(codeReferences(source).all).toBe(true);
  });
});

describe('publishing checks that every named reference can have run', () => {
  const steps: StoredStep[] = [
    { block: code('prep', 'return { text: input.message };') },
    { parallel: [llm('route', 'Route {{steps.prep.output.text}}'), llm('tone', 'Tone of {{input.message}} after {{steps.route.output}}')] },
    { loop: { over: 'parameters.items', block: llm('each', 'Item {{previous_output}} of {{steps.each.output}}') } },
    { block: code('final', 'return { r: input.steps.route, n: input.steps.nothing, e: input.steps.each, later: input.steps.after };') },
    { block: llm('after', 'Done: {{steps.final.output.r}} {{steps.after.output}}') },
  ];

  it('refuses a sibling, the block itself, a later block and a name no block has, naming the block and the reference', () => {
    expect(stepReferenceProblems(steps)).toEqual([
      "steps[1].parallel[1] (block 'tone'): the reference steps.route cannot be read: that block runs beside it, in the same parallel step; a block reads only blocks of earlier steps",
      "steps[2].loop.block (block 'each'): the reference steps.each cannot be read: that is this block itself; a block reads only blocks of earlier steps",
      "steps[3].block (block 'final'): the reference steps.nothing cannot be read: no block has that name; a block reads only blocks of earlier steps",
      "steps[3].block (block 'final'): the reference steps.after cannot be read: that block runs later (steps[4]); a block reads only blocks of earlier steps",
      "steps[4].block (block 'after'): the reference steps.after cannot be read: that is this block itself; a block reads only blocks of earlier steps",
    ]);
    expect(validateFlowForPublish(steps)).toEqual(stepReferenceProblems(steps));
  });

  it('accepts references to blocks of earlier steps, a parallel step and a loop among them, in prompts and system prompts', () => {
    const valid: StoredStep[] = [
      { parallel: [llm('a', '{{message}}'), llm('b', '{{message}}')] },
      { loop: { over: 'parameters.items', block: llm('each', '{{previous_output}}') } },
      { block: { ...llm('c', '{{steps.a.output}} {{steps.each.output}}'), processor_config: { system_prompt: 'Be {{steps.b.output.tone}}' } } },
      { block: code('d', 'return [input.steps.a, input.steps.c];') },
    ];
    expect(validateFlowForPublish(valid)).toEqual([]);
    const sibling: StoredStep[] = [{ parallel: [llm('a', '{{message}}'), { ...llm('b', 'x'), processor_config: { system_prompt: '{{steps.a.output}}' } }] }];
    expect(validateFlowForPublish(sibling)).toEqual([expect.stringContaining("(block 'b'): the reference steps.a cannot be read")]);
  });
});
