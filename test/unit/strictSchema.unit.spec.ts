import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { dropNullOptionals, planStructuredOutput } from '../../src/domain/execution/strictSchema.ts';
import { strictSchemaProblem } from '../support/openaiRequestRules.ts';

/** The schema of the README's flow file example, as users write schemas. */
const readmeSchema = { type: 'object', properties: { language_code: { type: 'string' } }, required: ['language_code'] };
const withOptional = {
  type: 'object',
  properties: {
    score: { type: 'integer', minimum: 0, maximum: 100 },
    note: { type: 'string' },
    maybe: { type: ['string', 'null'] },
    issues: { type: 'array', items: { type: 'object', properties: { category: { enum: ['grammar', 'clarity'] }, hint: { type: 'string' } }, required: ['category'] } },
    child: { $ref: '#/$defs/child' },
  },
  required: ['score', 'issues'],
  $defs: { child: { type: 'object', properties: { name: { type: 'string' } } } },
};

describe('output schemas sent to the model in strict mode', () => {
  it('the scripted server refuses the schemas users write, as OpenAI does', () => {
    expect(strictSchemaProblem(readmeSchema, 'x')).toMatch(/additionalProperties/);
    expect(strictSchemaProblem({ ...readmeSchema, additionalProperties: false, properties: { a: {}, b: {} }, required: ['a'] }, 'x')).toMatch(/Missing 'b'/);
  });

  it.each([
    ['the README example', readmeSchema],
    ['optional, nullable, nested, array and $ref properties', withOptional],
  ])('makes %s strict-compatible', (_name, schema) => {
    const plan = planStructuredOutput(schema);
    expect(plan.strict).toBe(true);
    expect(strictSchemaProblem(plan.schema, 'x')).toBeUndefined();
    expect(schema).toEqual(JSON.parse(JSON.stringify(schema))); // the user's schema is untouched
  });

  it('an optional property becomes required and nullable; its null is dropped before validating against the user schema', () => {
    const plan = planStructuredOutput(withOptional);
    expect(plan.schema).toMatchObject({ required: ['score', 'note', 'maybe', 'issues', 'child'], additionalProperties: false, properties: { note: { anyOf: [{ type: 'string' }, { type: 'null' }] }, maybe: { type: ['string', 'null'] } } });
    const reply = { score: 7, note: null, maybe: null, issues: [{ category: 'grammar', hint: null }], child: { name: null } };
    const cleaned = dropNullOptionals(reply, withOptional);
    expect(cleaned).toEqual({ score: 7, maybe: null, issues: [{ category: 'grammar' }], child: {} });
    expect(new Ajv({ strict: false }).validate(withOptional, cleaned)).toBe(true);
  });

  it.each([
    ['a free-form object', { type: 'object', properties: { tags: { type: 'object' } }, required: ['tags'] }, /without properties/],
    ['additionalProperties: true', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }, /additionalProperties/],
    ['an unsupported keyword', { type: 'object', properties: { a: { type: 'string', minLength: 2 } } }, /"minLength" is not supported/],
    ['allOf', { type: 'object', properties: {}, allOf: [], additionalProperties: false }, /"allOf"/],
    ['an optional property under anyOf', { type: 'object', properties: { a: { anyOf: [{ type: 'object', properties: { b: { type: 'string' } } }, { type: 'string' }] } }, required: ['a'] }, /optional property "b" under anyOf/],
    ['tuple items', { type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } }, required: ['a'] }, /tuple/],
    ['nesting deeper than 10', nest(11), /nesting deeper than 10/],
    ['more than 1000 enum values', { type: 'object', properties: { a: { enum: Array.from({ length: 1001 }, (_, i) => i) } }, required: ['a'] }, /1000 enum values/],
  ])('sends %s non-strict and unchanged, with the reason', (_name, schema, reason) => {
    const plan = planStructuredOutput(schema as Record<string, unknown>);
    expect(plan).toMatchObject({ strict: false, schema, reason: expect.stringMatching(reason) });
  });

  it('a "__proto__" key in a reply stays a plain data property', () => {
    const reply = JSON.parse('{"__proto__": {"polluted": true}, "a": null}');
    const cleaned = dropNullOptionals(reply, { type: 'object', properties: { a: { type: 'string' } } }) as Record<string, unknown>;
    expect(Object.keys(cleaned)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

function nest(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { x: schema }, required: ['x'] };
  return schema;
}
