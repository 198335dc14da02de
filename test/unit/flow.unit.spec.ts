import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFlowFile } from '../../src/commands/flowCommands.ts';
import { fold } from '../../src/domain/decider.ts';
import { type StoredStep, assignBlockIds, toFileSteps } from '../../src/domain/flows/flowDefinition.ts';
import { flow } from '../../src/domain/flows/flow.ts';
import type { FlowEvent } from '../../src/domain/flows/flowEvents.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';

const problemsOf = (input: unknown): string[] => {
  try {
    parseFlowFile(input);
    return [];
  } catch (error) {
    return (error as { extra: { problems: string[] } }).extra.problems;
  }
};

const issueExample = {
  slug: 'essay-feedback',
  name: 'Essay feedback',
  steps: [
    {
      block: {
        name: 'detect',
        processor_type: 'llm',
        model: 'gpt-4o-mini',
        prompt: 'Detect the language of: {{message}}',
        output_schema: { type: 'object', properties: { language_code: { type: 'string' } }, required: ['language_code'] },
      },
    },
    { parallel: [{ name: 'a', processor_type: 'passthrough' }, { name: 'b', processor_type: 'code', code: 'return { n: input.message.length };' }] },
    { loop: { over: 'previous_output.items', block: { name: 'each', processor_type: 'passthrough' } } },
  ],
};

let counter = 0;
const ids = () => `id-${++counter}`;

describe('flow files', () => {
  it('accepts the documented example and the shipped demo flow', () => {
    expect(problemsOf(issueExample)).toEqual([]);
    expect(problemsOf(JSON.parse(readFileSync(new URL('../../examples/hello.flow.json', import.meta.url), 'utf8')))).toEqual([]);
  });

  it('names the path of an unknown field', () => {
    const file = structuredClone(issueExample) as Record<string, unknown> & typeof issueExample;
    (file.steps[1]!.parallel![1] as Record<string, unknown>).colour = 'red';
    file.extra = true;
    expect(problemsOf(file)).toEqual(expect.arrayContaining(['steps[1].parallel[1].colour: unknown field', 'extra: unknown field']));
  });

  it('names the path of an invalid value', () => {
    const file = structuredClone(issueExample);
    (file.steps[0]!.block as Record<string, unknown>).processor_type = 'python';
    expect(problemsOf(file)).toEqual([expect.stringMatching(/^steps\[0\]\.block\.processor_type: /)]);
    expect(problemsOf({ ...issueExample, slug: 'Not A Slug' })).toEqual([expect.stringMatching(/^slug: /)]);
    expect(problemsOf({ ...issueExample, steps: [{ loop: { over: 'process.env', block: { name: 'x', processor_type: 'passthrough' } } }] })).toEqual([
      expect.stringMatching(/^steps\[0\]\.loop\.over: /),
    ]);
  });

  it('refuses a step that is not exactly one of block, parallel, loop or switch', () => {
    expect(problemsOf({ ...issueExample, steps: [{}] })).toEqual(['steps[0]: a step has exactly one of block, parallel, loop or switch']);
    const both = { block: { name: 'x', processor_type: 'passthrough' }, parallel: [{ name: 'y', processor_type: 'passthrough' }] };
    expect(problemsOf({ ...issueExample, steps: [both] })).toEqual(['steps[0]: a step has exactly one of block, parallel, loop or switch']);
  });

  it('keeps block ids of same-named blocks across re-imports and exports without ids', () => {
    const first = assignBlockIds(parseFlowFile(issueExample).steps, [], ids);
    const renamed = structuredClone(issueExample);
    renamed.steps[1]!.parallel![0]!.name = 'a2';
    const second = assignBlockIds(parseFlowFile(renamed).steps, first, ids);
    const idOf = (steps: StoredStep[], name: string) => JSON.stringify(steps).match(new RegExp(`"name":"${name}"[^}]*"id":"([^"]+)"`))?.[1];
    expect(idOf(second, 'detect')).toBe(idOf(first, 'detect'));
    expect(idOf(second, 'b')).toBe(idOf(first, 'b'));
    expect(idOf(second, 'a2')).not.toBe(idOf(first, 'a'));
    expect(toFileSteps(first)).toEqual(issueExample.steps);
  });
});

describe('publish validation', () => {
  const stored = (file: unknown) => assignBlockIds(parseFlowFile(file).steps, [], ids);

  it('accepts a valid flow', () => {
    expect(validateFlowForPublish(stored(issueExample))).toEqual([]);
  });

  it('reports duplicate block names, missing code and prompts, bad schemas and empty flows, each with its path', () => {
    const steps = stored({
      slug: 'bad',
      name: 'Bad',
      steps: [
        { block: { name: 'x', processor_type: 'llm' } },
        { parallel: [{ name: 'x', processor_type: 'passthrough' }, { name: 'c', processor_type: 'code' }] },
        { block: { name: 's', processor_type: 'llm', prompt: 'p', output_schema: { type: 'string' } } },
        { block: { name: 't', processor_type: 'llm', prompt: 'p', output_schema: { type: 'object', properties: { a: { type: 'nonsense' } } } } },
        { loop: { over: 'previous_output', block: { name: 'u', processor_type: 'code', code: 'return 1', processor_config: { tools_enabled: true } } } },
      ],
    });
    expect(validateFlowForPublish(steps)).toEqual([
      "steps[0].block (block 'x').prompt: llm blocks need a prompt",
      "steps[1].parallel[0] (block 'x').name: block name 'x' is already used at steps[0].block",
      "steps[1].parallel[1] (block 'c').code: code blocks need code",
      "steps[2].block (block 's').output_schema: must be a JSON Schema with \"type\": \"object\"",
      expect.stringMatching(/^steps\[3\]\.block \(block 't'\)\.output_schema: not a valid JSON Schema: /),
      "steps[4].loop.block (block 'u').processor_config.tools_enabled: only llm blocks can call tools",
    ]);
    expect(validateFlowForPublish([])).toEqual(['steps: a flow needs at least one step']);
  });
});

describe('flow decider', () => {
  const steps = assignBlockIds(parseFlowFile(issueExample).steps, [], ids);
  const created: FlowEvent[] = flow.decide({ type: 'CreateFlow', data: { flowId: 'f', projectId: 'p', organizationId: 'o', slug: 's', name: 'N', steps } }, flow.initialState());

  it('Given a new flow, When published twice, Then versions 1 and 2 snapshot the draft at that time', () => {
    const v1 = flow.decide({ type: 'PublishVersion', data: { versionId: 'v1', note: 'first' } }, fold(flow, created));
    expect(v1).toEqual([{ type: 'FlowVersionPublished', data: { flowId: 'f', versionId: 'v1', number: 1, note: 'first', name: 'N', steps } }]);
    const edited: FlowEvent = { type: 'FlowDraftReplaced', data: { flowId: 'f', name: 'N2', steps: steps.slice(0, 1) } };
    const v2 = flow.decide({ type: 'PublishVersion', data: { versionId: 'v2', note: null } }, fold(flow, [...created, ...v1, edited]));
    expect(v2[0]).toMatchObject({ data: { number: 2, name: 'N2', steps: steps.slice(0, 1) } });
    // The earlier version is untouched by the later edit.
    const state = fold(flow, [...created, ...v1, edited, ...v2]);
    expect(state.status === 'created' && state.versions[0]!.steps).toEqual(steps);
  });

  it('Given an invalid draft, When published, Then FLOW_INVALID lists the problems', () => {
    const state = fold(flow, [...created, { type: 'FlowDraftReplaced', data: { flowId: 'f', name: 'N', steps: [] } }]);
    expect(() => flow.decide({ type: 'PublishVersion', data: { versionId: 'v', note: null } }, state)).toThrow(
      expect.objectContaining({ code: 'FLOW_INVALID', extra: { problems: ['steps: a flow needs at least one step'] } }),
    );
  });

  it('sets production only to a version of this flow, and only once per change', () => {
    const v1 = flow.decide({ type: 'PublishVersion', data: { versionId: 'v1', note: null } }, fold(flow, created));
    const state = fold(flow, [...created, ...v1]);
    expect(() => flow.decide({ type: 'SetProductionVersion', data: { versionId: 'elsewhere' } }, state)).toThrow(expect.objectContaining({ code: 'VERSION_NOT_FOUND' }));
    const set = flow.decide({ type: 'SetProductionVersion', data: { versionId: 'v1' } }, state);
    expect(set).toEqual([{ type: 'FlowProductionVersionSet', data: { flowId: 'f', versionId: 'v1', number: 1, previousVersionId: null } }]);
    expect(flow.decide({ type: 'SetProductionVersion', data: { versionId: 'v1' } }, fold(flow, [...created, ...v1, ...set]))).toEqual([]);
  });
});
