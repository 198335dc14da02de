import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../src/domain/templating/template.ts';

const context = {
  message: 'Bonjour',
  previous_output: { language: { code: 'fr', name: 'French' }, score: 0, ok: false, list: [1, 2], text: 'plain' },
  parameters: { native_language: 'Spanish', nested: { deep: 'value' }, count: 3 },
  steps: { route: { queue: 'billing', urgent: true }, items: [{ n: 1 }, { n: 2 }], // An inherited name is no block's output.
    __proto__: { hidden: { output: 'inherited' } },
  } as Record<string, unknown>,
};

describe('prompt templating', () => {
  it.each([
    ['{{message}}', 'Bonjour'],
    ['{{ message }}', 'Bonjour'],
    ['{{previous_output.language.name}} ({{previous_output.language.code}})', 'French (fr)'],
    ['{{previous_output.score}} {{previous_output.ok}}', '0 false'],
    ['{{previous_output.text}}', 'plain'],
    ['{{previous_output.list}}', '[1,2]'],
    ['{{previous_output.language}}', '{"code":"fr","name":"French"}'],
    ['{{parameters.native_language}} {{parameters.nested.deep}} {{parameters.count}}', 'Spanish value 3'],
    ['no placeholders', 'no placeholders'],
    ['{{input.message}}: {{input.parameters.native_language}} {{input.parameters.nested.deep}}', 'Bonjour: Spanish value'],
    ['{{steps.route.output.queue}} {{steps.route.output.urgent}}', 'billing true'],
    ['{{steps.route.output}}', '{"queue":"billing","urgent":true}'],
    ['{{steps.items.output}}', '[{"n":1},{"n":2}]'],
  ])('renders %s', (template, expected) => {
    expect(renderTemplate(template, context)).toEqual({ text: expected, missing: [] });
  });

  it('renders the whole previous output as JSON', () => {
    expect(renderTemplate('{{previous_output}}', context).text).toBe(JSON.stringify(context.previous_output));
    expect(renderTemplate('{{previous_output}}', { ...context, previous_output: 'just text' }).text).toBe('just text');
  });

  it('renders absent values as empty and reports each of them', () => {
    expect(renderTemplate('[{{parameters.missing}}] [{{previous_output.language.iso3}}] [{{parameters}}] [{{unknown.root}}] [{{message.length}}]', context)).toEqual({
      text: '[] [] [] [] []',
      missing: ['parameters.missing', 'previous_output.language.iso3', 'parameters', 'unknown.root', 'message.length'],
    });
    expect(renderTemplate('[{{steps.route}}] [{{steps.other.output}}] [{{steps.route.output.missing}}] [{{input}}] [{{input.parameters}}] [{{steps.toString.output}}] [{{steps.hidden.output}}]', context)).toEqual({
      text: '[] [] [] [] [] [] []',
      missing: ['steps.route', 'steps.other.output', 'steps.route.output.missing', 'input', 'input.parameters', 'steps.toString.output', 'steps.hidden.output'],
    });
    expect(renderTemplate('{{previous_output}} {{message}}', { message: undefined, previous_output: undefined, parameters: {}, steps: {} })).toEqual({
      text: ' ',
      missing: ['previous_output', 'message'],
    });
  });

  it('evaluates nothing: expressions, prototype walks and calls render empty', () => {
    const rendered = renderTemplate(
      '[{{parameters.count + 1}}] [{{parameters.constructor}}] [{{previous_output.__proto__}}] [{{process.env.HOME}}] [{{ message.toUpperCase() }}]',
      context,
    );
    expect(rendered.text).toBe('[] [] [] [] []');
    expect(rendered.missing).toHaveLength(5);
  });
});
