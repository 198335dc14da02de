import { describe, expect, it } from 'vitest';
import { kindHints } from '../../src/api/mcp/tools/authoringShapes.ts';
import { blockKinds, kindsTaking, processorTypes } from '../../src/domain/blocks/blockKinds.ts';
import { updateBlock } from '../../src/domain/flows/draftEdits.ts';
import { processorConfigSchema } from '../../src/domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';
import { blockRunners } from '../../src/execution/blocks/blockRunners.ts';

/**
 * Block kinds are modules (issue 61 point 0): one registry of kinds, and every part of the service
 * that treats a kind apart reads it from there. These check the registry's promises; what each kind
 * does is checked by the specs of the flows, the engine and MCP as before.
 */
describe('the block kinds registry', () => {
  it('lists the spec’s three processor types first, then the kinds Seqflow adds, in the order refusals name them', () => {
    expect(processorTypes).toEqual(['llm', 'passthrough', 'code', 'http', 'approval', 'flow']);
  });

  it('has a runner for every kind, and no runner for a kind it does not list', () => {
    expect(Object.keys(blockRunners).sort()).toEqual([...processorTypes].sort());
  });

  it('makes the file’s processor_config of every kind’s own keys, each key owned by one kind', () => {
    const owned = processorTypes.flatMap((type) => Object.keys(blockKinds[type].configShape));
    expect(new Set(owned).size).toBe(owned.length);
    expect(Object.keys(processorConfigSchema.shape).sort()).toEqual(owned.sort());
  });

  it('refuses a field on a kind that does not take it, naming the kinds that do', () => {
    expect(kindsTaking('prompt')).toEqual(['llm']);
    expect(kindsTaking('code')).toEqual(['code']);
    const steps = [{ block: { id: 'b1', name: 'tidy', processor_type: 'code' as const, code: 'return 1;' } }];
    expect(() => updateBlock(steps, 'b1', { prompt: 'hello' })).toThrow("prompt: only llm blocks have a prompt ('tidy' is code)");
  });

  it('checks a block at publish by its own kind, and refuses another kind’s settings on it', () => {
    const problems = validateFlowForPublish([
      { block: { id: 'b1', name: 'ask', processor_type: 'llm', prompt: ' ' } },
      { block: { id: 'b2', name: 'tidy', processor_type: 'code', code: 'return (', processor_config: { temperature: 0.2 } } },
      { block: { id: 'b3', name: 'keep', processor_type: 'passthrough', processor_config: { tools_enabled: true } } },
    ]);
    expect(problems).toEqual([
      "steps[0].block (block 'ask').prompt: llm blocks need a prompt",
      expect.stringMatching(/^steps\[1\]\.block \(block 'tidy'\)\.code: does not parse: line 1, column 9: /),
      "steps[1].block (block 'tidy').processor_config: temperature: only llm blocks take model settings",
      "steps[2].block (block 'keep').processor_config.tools_enabled: only llm blocks can call tools",
    ]);
  });

  it('reads a step in a trace as its kind records it: a model’s prompt and settings, or the input itself', () => {
    expect(blockKinds.llm.stepView({ prompt: 'Classify: hi', settings: { temperature: 0 }, responseFormat: { type: 'text' } })).toEqual({ prompt: 'Classify: hi', systemPrompt: null, settings: { temperature: 0 }, responseFormat: { type: 'text' }, input: null });
    expect(blockKinds.code.stepView({ message: 'hi' })).toEqual({ prompt: null, systemPrompt: null, settings: null, responseFormat: null, input: { message: 'hi' } });
  });

  it('tells an assistant adding a block what each kind needs, in the registry’s order', () => {
    const adding = kindHints('adding');
    expect(adding.indexOf('llm blocks need a prompt')).toBe(0);
    expect(adding).toContain("A code block's code is the body of a JavaScript function of `input`");
    expect(kindHints('editing')).not.toContain('llm blocks need a prompt');
  });
});
