import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvent, eventDefinitions } from '../../src/domain/domainEvent.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { ERASED, SEALED_PROPERTY, openData, sealData, sealedFields } from '../../src/domain/privacy/sealedFields.ts';
import { parseRunSelector, selects } from '../../src/domain/privacy/runSelector.ts';
import { newDataKey, openValue, sealValue } from '../../src/security/runDataCipher.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const requested: ExecutionEvent = {
  type: 'ExecutionRequested',
  data: { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'my email is a@b.c', parameters: { customer_id: 42 }, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null },
};
const completed: ExecutionEvent = { type: 'ExecutionCompleted', data: { executionId: 'e', result: { answer: 'x' }, durationMs: 5 } };
const erase = { type: 'Erase' as const, data: { trigger: 'request' as const, reason: 'GDPR #7', erasedAt: '2026-11-26T10:00:00.000Z' } };
const erased: ExecutionEvent = { type: 'RunDataErased', data: { executionId: 'e', trigger: 'request', reason: 'GDPR #7', erasedAt: '2026-11-26T10:00:00.000Z' } };
const spec = deciderSpec(execution);

describe('erasing a run (decider)', () => {
  it('Given a run that ended, When its data is erased, Then RunDataErased; erasing again records nothing', () => {
    spec.given([requested, completed]).when(erase).then([erased]);
    spec.given([requested, { type: 'ExecutionFailed', data: { executionId: 'e', reason: 'error', code: 'X', message: 'm', stepIndex: null, blockName: null, durationMs: 1 } }]).when(erase).then([erased]);
    spec.given([requested, completed, erased]).when(erase).then([]);
  });

  it('refuses a run still running or paused (it would go on writing), and a run that does not exist', () => {
    spec.given([requested]).when(erase).thenRefuses('CONFLICT');
    spec.given([requested, { type: 'ExecutionPausedForToolCalls', data: { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'a', iterationsUsed: 1, toolCalls: [], messagesDigest: 'd', messageCount: 1 } }]).when(erase).thenRefuses('CONFLICT');
    spec.given([]).when(erase).thenRefuses('EXECUTION_NOT_FOUND');
  });
});

describe('sealed fields', () => {
  const key = newDataKey();
  const seal = (id: string) => (run: string, fields: Record<string, unknown>) => sealValue(key, run, id, fields);

  it('names only fields its event type has, and every erased value decodes through the current schema', () => {
    const types = new Map<string, (typeof eventDefinitions)[number]>(eventDefinitions.map((d) => [d.type, d]));
    for (const [type, fields] of Object.entries(sealedFields)) {
      const definition = types.get(type);
      expect(definition, type).toBeDefined();
      const shape = (definition!.schema as unknown as { shape: Record<string, unknown> }).shape;
      expect(Object.keys(shape), type).toContain('executionId');
      for (const field of fields) expect(Object.keys(shape), `${type}.${field.field}`).toContain(field.field);
    }
    const { data } = sealData(requested.type, requested.data, seal('event-1'));
    expect(Object.keys(data as object)).toEqual([...Object.keys(requested.data).filter((k) => !['message', 'parameters', 'attachments', 'tools'].includes(k)), SEALED_PROPERTY]);
    const { data: opened, erasedFields } = openData(requested.type, data, () => ERASED);
    expect(erasedFields).toEqual(['message', 'parameters', 'attachments', 'tools']);
    expect(decodeEvent(requested.type, 5, opened)).toMatchObject({ data: { executionId: 'e', message: null, parameters: {}, attachments: [] } });
  });

  it('property: sealing then opening gives back any value, the same event seals to the same text, and a changed byte or another run never opens', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.uuid(), (value, eventId) => {
        const data = { ...requested.data, parameters: { value } };
        const first = sealData(requested.type, data, seal(eventId));
        const again = sealData(requested.type, data, seal(eventId));
        expect(first.data).toEqual(again.data);
        const text = (first.data as Record<string, unknown>)[SEALED_PROPERTY] as string;
        expect(text.startsWith('sealed:v2:')).toBe(true);
        if (JSON.stringify(value).length >= 12) expect(text).not.toContain(JSON.stringify(value));
        const { data: opened } = openData(requested.type, first.data, (run, sealed) => openValue(key, run, sealed));
        expect(opened).toEqual(JSON.parse(JSON.stringify(data)));
        // Inside the nonce, then inside the tag (the text's last whole characters): every bit of either counts.
        for (const at of ['sealed:v2:'.length + 20, text.length - 4]) {
          const changed = `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
          expect(() => openValue(key, 'e', changed)).toThrow(/does not open/);
        }
        expect(() => openValue(newDataKey(), 'e', text)).toThrow(/does not open/);
        // The run's id is associated data: the text copied into another run's event does not open, even under the same key.
        expect(() => openValue(key, 'another-run', text)).toThrow(/does not open/);
        // The nonce comes from the event's id: another event's id seals the same data to another text.
        const other = sealData(requested.type, data, seal(eventId.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))));
        expect((other.data as Record<string, unknown>)[SEALED_PROPERTY]).not.toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});

describe('choosing runs to erase by content', () => {
  it('reads input.message and input.parameters paths, matching strings exactly and numbers and booleans by their JSON text', () => {
    const input = { message: 'hi', parameters: { customer_id: 42, tier: 'gold', nested: { id: 'x' }, vip: true } };
    expect(selects(parseRunSelector('input.parameters.customer_id=42'), input)).toBe(true);
    expect(selects(parseRunSelector('input.parameters.customer_id=4'), input)).toBe(false);
    expect(selects(parseRunSelector('input.parameters.nested.id=x'), input)).toBe(true);
    expect(selects(parseRunSelector('input.parameters.vip=true'), input)).toBe(true);
    expect(selects(parseRunSelector('input.message=hi'), input)).toBe(true);
    expect(selects(parseRunSelector('input.parameters.missing=hi'), input)).toBe(false);
    expect(selects(parseRunSelector('input.parameters.nested=x'), input)).toBe(false);
    for (const bad of ['output.x=1', 'input.parameters=1', 'input.message', 'input.parameters.a=', 'input.parameters..a=1']) expect(() => parseRunSelector(bad), bad).toThrow(/--where must be/);
  });
});
