import { describe, expect, it } from 'vitest';
import { draftWarnings } from '../../src/domain/flows/draftWarnings.ts';

const llm = (prompt: string | null, model: string | null = null) => ({ step_id: 's1', name: 'ask', processor_type: 'llm' as const, model, prompt });
const known = (model: string) => model === 'gpt-4o-mini';

describe('warnings about a draft', () => {
  it('says nothing of placeholders that can render and of known or default models', () => {
    expect(draftWarnings([llm('{{message}} {{previous_output}} {{previous_output.a.b}} {{ parameters.name }}', 'gpt-4o-mini'), llm('x')], known)).toEqual([]);
  });

  it.each(['parameterz.x', 'message.text', 'parameters', 'steps.a', 'previous_output..a'])('warns of {{%s}}, which always renders empty', (expression) => {
    expect(draftWarnings([llm(`Hi {{${expression}}}`)], known)).toEqual([expect.stringContaining(`{{${expression}}} always renders empty`)]);
  });

  it('warns of an llm block without a prompt and of an unknown model, never of a code block\'s model', () => {
    expect(draftWarnings([llm('  ', 'mystery')], known)).toEqual([expect.stringContaining('has no prompt'), expect.stringContaining("'mystery'")]);
    expect(draftWarnings([{ step_id: 'c', name: 'c', processor_type: 'code', model: 'mystery', prompt: null }], known)).toEqual([]);
  });
});
