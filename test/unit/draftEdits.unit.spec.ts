import { describe, expect, it } from 'vitest';
import { addBlock, removeBlock, setLoop, setOutputSchema, updateBlock } from '../../src/domain/flows/draftEdits.ts';
import { type StoredStep, blocksOfStep } from '../../src/domain/flows/flowDefinition.ts';

const llm = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: id, processor_type: 'llm' as const, prompt: `${id}: {{message}}`, ...extra });
/** The draft's shape in short: each step as its block ids, `[a,b]` for parallel, `loop(a)`. */
const shape = (steps: StoredStep[]) => steps.map((s) => ('parallel' in s ? `[${s.parallel.map((b) => b.id).join(',')}]` : 'loop' in s ? `loop(${s.loop.block.id})` : 'switch' in s ? `switch(${blocksOfStep(s).map((b) => b.id).join('|')})` : s.block.id));
const code = (error: () => unknown) => {
  try {
    error();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'no error';
};

describe('editing a draft block by block', () => {
  const base = () => {
    let steps = addBlock([], llm('detect'), {});
    steps = addBlock(steps, llm('grade'), { targetId: 'detect', direction: 'right' });
    return addBlock(steps, llm('translate'), { targetId: 'grade', direction: 'right' });
  };

  it('adds the first block without a target, then right of a target in a new step, and bottom as a parallel sibling', () => {
    expect(shape(base())).toEqual(['detect', 'grade', 'translate']);
    expect(shape(addBlock(base(), llm('middle'), { targetId: 'detect', direction: 'right' }))).toEqual(['detect', 'middle', 'grade', 'translate']);
    const parallel = addBlock(base(), llm('style'), { targetId: 'grade', direction: 'bottom' });
    expect(shape(parallel)).toEqual(['detect', '[grade,style]', 'translate']);
    expect(shape(addBlock(parallel, llm('tone'), { targetId: 'grade', direction: 'bottom' }))).toEqual(['detect', '[grade,tone,style]', 'translate']);
  });

  it('takes an empty prompt or code on a block without one as none, and still refuses a real one', () => {
    const steps = addBlock([], { id: 'p', name: 'p', processor_type: 'passthrough', prompt: '', code: '' }, {});
    expect(steps).toEqual([{ block: { id: 'p', name: 'p', processor_type: 'passthrough' } }]);
    expect(code(() => addBlock([], { id: 'q', name: 'q', processor_type: 'passthrough', prompt: 'Say {{message}}' }, {}))).toBe('BLOCK_INVALID');
  });

  it('removes a block, its step when it empties, and turns a parallel step of one into a plain step', () => {
    const parallel = addBlock(base(), llm('style'), { targetId: 'grade', direction: 'bottom' });
    expect(shape(removeBlock(parallel, 'style'))).toEqual(['detect', 'grade', 'translate']);
    expect(removeBlock(parallel, 'style')[1]).toEqual({ block: expect.objectContaining({ id: 'grade' }) });
    expect(shape(removeBlock(base(), 'grade'))).toEqual(['detect', 'translate']);
  });

  it('wraps a block in a loop and unwraps it', () => {
    const looped = setLoop(base(), 'grade', 'previous_output.items');
    expect(shape(looped)).toEqual(['detect', 'loop(grade)', 'translate']);
    expect(looped[1]).toEqual({ loop: { over: 'previous_output.items', block: expect.objectContaining({ id: 'grade' }) } });
    expect(shape(setLoop(looped, 'grade', null))).toEqual(['detect', 'grade', 'translate']);
  });

  it('updates fields, sets and clears an output schema', () => {
    const updated = updateBlock(base(), 'grade', { model: 'gpt-4o', prompt: 'Grade {{previous_output}}', processor_config: { tools_enabled: true } });
    expect(updated[1]).toEqual({ block: { id: 'grade', name: 'grade', processor_type: 'llm', prompt: 'Grade {{previous_output}}', model: 'gpt-4o', processor_config: { tools_enabled: true } } });
    expect((updateBlock(updated, 'grade', { model: null })[1] as { block: object }).block).not.toHaveProperty('model');
    const schema = { type: 'object', properties: { score: { type: 'integer' } } };
    const withSchema = setOutputSchema(base(), 'grade', schema);
    expect((withSchema[1] as { block: { output_schema: unknown } }).block.output_schema).toEqual(schema);
    expect((setOutputSchema(withSchema, 'grade', null)[1] as { block: object }).block).not.toHaveProperty('output_schema');
  });

  it.each([
    ['an unknown block', () => updateBlock(base(), 'nope', { model: 'x' }), 'BLOCK_NOT_FOUND'],
    ['a duplicate name on add', () => addBlock(base(), llm('grade'), { targetId: 'detect' }), 'BLOCK_NAME_TAKEN'],
    ['a duplicate name on rename', () => updateBlock(base(), 'grade', { name: 'detect' }), 'BLOCK_NAME_TAKEN'],
    ['a missing target once there are blocks', () => addBlock(base(), llm('x'), {}), 'PLACEMENT_INVALID'],
    ['a target in another flow', () => addBlock(base(), llm('x'), { targetId: 'elsewhere' }), 'BLOCK_NOT_FOUND'],
    ['an unknown direction', () => addBlock(base(), llm('x'), { targetId: 'grade', direction: 'up' as never }), 'PLACEMENT_INVALID'],
    ['a sibling of a loop', () => addBlock(setLoop(base(), 'grade', 'previous_output.items'), llm('x'), { targetId: 'grade', direction: 'bottom' }), 'PLACEMENT_INVALID'],
    ['a loop over a bad path', () => setLoop(base(), 'grade', 'items; drop'), 'PLACEMENT_INVALID'],
    ['a prompt on a code block', () => addBlock(base(), { id: 'c', name: 'c', processor_type: 'code', prompt: 'x' }, { targetId: 'grade' }), 'BLOCK_INVALID'],
    ['a field an update cannot change', () => updateBlock(base(), 'grade', { processor_type: 'code' } as never), 'BLOCK_INVALID'],
    ['a bad processor_config', () => updateBlock(base(), 'grade', { processor_config: { max_tool_iterations: 0 } }), 'BLOCK_INVALID'],
    ['a schema that is not an object schema', () => setOutputSchema(base(), 'grade', { type: 'string' }), 'OUTPUT_SCHEMA_INVALID'],
    ['a schema that is not valid JSON Schema', () => setOutputSchema(base(), 'grade', { type: 'object', properties: { a: { type: 'nonsense' } } }), 'OUTPUT_SCHEMA_INVALID'],
  ])('refuses %s with its code', (_label, edit, expected) => {
    expect(code(edit)).toBe(expected);
  });

  it('names the JSON pointer of a schema error', () => {
    expect(() => setOutputSchema(base(), 'grade', { type: 'object', properties: { a: { type: 'nonsense' } } })).toThrow(/\/properties\/a\/type/);
  });
});
