import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { eventDefinitions } from '../../src/domain/domainEvent.ts';
import { classOf, operational, personal } from '../../src/domain/privacy/dataClass.ts';
import { eventPrivacy } from '../../src/domain/privacy/eventPrivacy.ts';
import { runToSeal, sealedFields } from '../../src/domain/privacy/sealedFields.ts';
import { anId } from '../../src/domain/privacy/operationalText.ts';

const shapeOf = (schema: z.ZodType) => (schema as unknown as z.ZodObject).shape;

/**
 * Issue 60 point 1: personal data is a property of the event schemas. Every text, open-object or
 * unknown field of every event is marked personal (sealed, erased with its run's key) or operational
 * (with its reason), and the sealed-field table is made from those marks.
 */
describe('every event field is classified personal or operational', () => {
  it.each(eventDefinitions.map((d) => [d.type, d] as const))('%s: no text, open object or unknown value is left undecided, and every personal field can be sealed', (_type, definition) => {
    const found = eventPrivacy(definition.schema);
    expect(found.unclassified, 'fields with no mark: add personal(...) or operational(..., reason) in the schema').toEqual([]);
    expect(found.unsealable, 'personal marks the log cannot seal (below the top level, or no executionId)').toEqual([]);
  });

  it('seals exactly the fields the schemas mark personal, and each reads back as its erased value through the schema', () => {
    for (const definition of eventDefinitions) {
      const personalFields = eventPrivacy(definition.schema).personal;
      expect(sealedFields[definition.type] ?? [], definition.type).toEqual(personalFields);
      for (const { field, erased } of personalFields) expect(shapeOf(definition.schema)[field]!.safeParse(erased).success, `${definition.type}.${field} erased as ${JSON.stringify(erased)}`).toBe(true);
    }
  });

  it('seals what reached the log unsealed before: failures\' details, receivers\' excerpts, judges\' words, test assertions\' reasons', () => {
    const sealed = (type: string) => (sealedFields[type] ?? []).map((f) => f.field);
    expect(sealed('ExecutionFailed')).toEqual(['detail']);
    expect(sealed('ExecutionStepFailed')).toEqual(['detail', 'attempts']);
    expect(sealed('DeliveryAttemptFinished')).toEqual(['errorExcerpt']);
    expect(sealed('BacktestRunCompared')).toEqual(['changes', 'judgeWords']);
    expect(sealed('TestRunFinished')).toEqual(['results']);
    expect(sealed('ExecutionStepCompleted')).toEqual(['input', 'output', 'validationErrors', 'rejectedReplies']);
    // The service's own words stay readable: what a run did is kept for audits.
    for (const [type, field] of [['ExecutionFailed', 'message'], ['ExecutionStepFailed', 'message'], ['RunDataErased', 'reason'], ['ExecutionFailed', 'code']] as const) {
      expect(classOf(shapeOf(eventDefinitions.find((d) => d.type === type)!.schema)[field]!)).toMatchObject({ kind: 'operational', reason: expect.stringMatching(/\S/) });
    }
  });

  it('stores an event whose personal fields hold nothing as it is: nothing to seal, no cipher call', () => {
    const failed = { executionId: 'e', reason: 'error', code: 'JOB_ABANDONED', message: 'the job was claimed too often', detail: null, stepIndex: null, blockName: null, durationMs: 1 };
    expect(runToSeal('ExecutionFailed', failed)).toBeNull();
    expect(runToSeal('ExecutionFailed', { ...failed, detail: 'Error: x' })).toBe('e');
  });
});

describe('the classification walk (so the check above can fail)', () => {
  const event = (shape: Record<string, z.ZodType>) => eventPrivacy(z.object(shape));

  it('finds every undecided text, open object and unknown value, however deep, and lets closed values be', () => {
    const found = event({
      executionId: anId(),
      note: z.string(),
      data: z.record(z.string(), z.unknown()),
      blob: z.unknown(),
      nested: z.object({ deep: z.array(z.object({ text: z.string().nullable().optional() })) }),
      either: z.union([z.object({ kind: z.literal('a'), a: z.string() }), z.object({ kind: z.literal('b'), n: z.number() })]),
      loose: z.looseObject({ n: z.number() }),
      closed: z.object({ at: z.iso.datetime(), id: z.uuid(), n: z.number().int(), on: z.boolean(), kind: z.enum(['x', 'y']), none: z.null() }),
    });
    expect(found.unclassified).toEqual(['note', 'data', 'blob', 'nested.deep[].text', 'either.a', 'loose.*']);
    expect(found.personal).toEqual([]);
  });

  it('takes a mark on the field or on what a wrapper holds, and an operational mark decides the whole value', () => {
    const found = event({
      executionId: anId(),
      said: personal(z.string().nullable(), null),
      wrapped: personal(z.string(), '').optional(),
      config: operational(z.record(z.string(), z.unknown()), 'configuration'),
    });
    expect(found).toEqual({ personal: [{ field: 'said', erased: null }, { field: 'wrapped', erased: '' }], unclassified: [], unsealable: [] });
  });

  it('refuses a personal mark the log cannot honour: below the top level, or in an event that names no run', () => {
    expect(event({ executionId: anId(), outer: z.object({ inner: personal(z.string(), '') }) }).unsealable).toEqual(['outer.inner']);
    expect(event({ deliveryId: anId(), excerpt: personal(z.string(), '') }).unsealable).toEqual(['excerpt']);
  });

  it('asks every operational mark for its reason', () => {
    expect(() => operational(z.string(), ' ')).toThrow(/needs its reason/);
  });
});
