import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvent, eventDefinitions } from '../../src/domain/domainEvent.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { ERASED, SEALED_PROPERTY, openData, sealEvents, sealedFields } from '../../src/domain/privacy/sealedFields.ts';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { SealedPartMissingError, createSealedTextOpener } from '../../src/eventstore/sealedTextOpener.ts';
import { parseRunSelector, selects } from '../../src/domain/privacy/runSelector.ts';
import { type DataKey, createRunDataCipher, newDataKey, openValue, sealValue } from '../../src/security/runDataCipher.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const requested: ExecutionEvent = {
  type: 'ExecutionRequested',
  data: { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'my email is a@b.c', parameters: { customer_id: 42 }, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
};
const completed: ExecutionEvent = { type: 'ExecutionCompleted', data: { executionId: 'e', result: { answer: 'x' }, durationMs: 5 } };
const erase = { type: 'Erase' as const, data: { trigger: 'request' as const, reason: 'GDPR #7', erasedAt: '2026-11-26T10:00:00.000Z', match: null } };
const erased: ExecutionEvent = { type: 'RunDataErased', data: { executionId: 'e', trigger: 'request', reason: 'GDPR #7', erasedAt: '2026-11-26T10:00:00.000Z', match: null } };
const spec = deciderSpec(execution);

describe('erasing a run (decider)', () => {
  it('Given a run that ended, When its data is erased, Then RunDataErased; erasing again records nothing', () => {
    spec.given([requested, completed]).when(erase).then([erased]);
    spec.given([requested, { type: 'ExecutionFailed', data: { executionId: 'e', reason: 'error', code: 'X', message: 'm', detail: null, stepIndex: null, blockName: null, durationMs: 1 } }]).when(erase).then([erased]);
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
  const sealParts = (run: string, holderEventId: string, parts: Record<string, unknown>[]) => sealValue(key, run, holderEventId, parts);
  const sealOne = (eventId: string, type: string, data: unknown) => sealEvents([{ id: eventId, type, data }], sealParts)[0]!;
  /** Events as an append of them reads back: consecutive revisions of one stream. */
  const asRecorded = (events: { id: string; type: string; data: unknown }[], sealed: { data: unknown; sealed: boolean }[]): RecordedEvent[] =>
    events.map((e, i) => ({ ...e, data: sealed[i]!.data, streamId: 'execution-e', revision: 7 + i, position: 100 + i, schemaVersion: 1, metadata: { sealed: sealed[i]!.sealed || undefined }, recordedAt: new Date(0), hash: null }) as RecordedEvent);
  /** Each event opened as a reader that holds `inHand` does, with `keyOf` giving the runs' keys. */
  const openAll = (events: RecordedEvent[], inHand: RecordedEvent[], keyOf: (run: string) => DataKey | 'erased' = () => key) => {
    const byRevision = new Map(inHand.map((e) => [e.revision, e]));
    const openText = createSealedTextOpener(createRunDataCipher(), keyOf, (event, back) => byRevision.get(event.revision - back));
    return events.map((e) => (e.metadata.sealed ? openData(e.type, e.data, openText(e)) : { data: e.data, erasedFields: [] }));
  };

  it('names only fields its event type has, and every erased value decodes through the current schema', () => {
    const types = new Map<string, (typeof eventDefinitions)[number]>(eventDefinitions.map((d) => [d.type, d]));
    for (const [type, fields] of Object.entries(sealedFields)) {
      const definition = types.get(type);
      expect(definition, type).toBeDefined();
      const shape = (definition!.schema as unknown as { shape: Record<string, unknown> }).shape;
      expect(Object.keys(shape), type).toContain('executionId');
      for (const field of fields) expect(Object.keys(shape), `${type}.${field.field}`).toContain(field.field);
    }
    const { data } = sealOne('event-1', requested.type, requested.data);
    expect(Object.keys(data as object)).toEqual([...Object.keys(requested.data).filter((k) => !['message', 'parameters', 'attachments', 'tools'].includes(k)), SEALED_PROPERTY]);
    const { data: opened, erasedFields } = openData(requested.type, data, () => ERASED);
    expect(erasedFields).toEqual(['message', 'parameters', 'attachments', 'tools']);
    expect(decodeEvent(requested.type, 5, opened)).toMatchObject({ data: { executionId: 'e', message: null, parameters: {}, attachments: [] } });
  });

  it('property: sealing then opening gives back any value, the same event seals to the same text, and a changed byte or another run never opens', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.uuid(), (value, eventId) => {
        const data = { ...requested.data, parameters: { value } };
        const first = sealOne(eventId, requested.type, data);
        const again = sealOne(eventId, requested.type, data);
        expect(first.data).toEqual(again.data);
        const text = (first.data as Record<string, unknown>)[SEALED_PROPERTY] as string;
        expect(text.startsWith('sealed:v3:')).toBe(true);
        if (JSON.stringify(value).length >= 12) expect(text).not.toContain(JSON.stringify(value));
        const [opened] = openAll(asRecorded([{ id: eventId, type: requested.type, data }], [first]), []);
        expect(opened!.data).toEqual(JSON.parse(JSON.stringify(data)));
        // Inside the nonce, then inside the tag (the text's last whole characters): every bit of either counts.
        for (const at of ['sealed:v3:'.length + 20, text.length - 4]) {
          const changed = `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
          expect(() => openValue(key, 'e', changed)).toThrow(/does not open/);
        }
        expect(() => openValue(newDataKey(), 'e', text)).toThrow(/does not open/);
        // The run's id is associated data: the text copied into another run's event does not open, even under the same key.
        expect(() => openValue(key, 'another-run', text)).toThrow(/does not open/);
        // The nonce comes from the event's id: another event's id seals the same data to another text.
        const other = sealOne(eventId.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')), requested.type, data);
        expect((other.data as Record<string, unknown>)[SEALED_PROPERTY]).not.toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it('property: a run\'s sealed events in one append share one box in the first of them; each opens to its own fields, read with its holder or not', () => {
    const step = (executionId: string, output: unknown) => ({ type: 'ExecutionStepCompleted', data: { executionId, stepIndex: 0, blockId: 'b', blockName: 'relay', iteration: null, input: output, output, model: null, usage: null, durationMs: 1, attempts: 1, validationErrors: [] } });
    const credits = (executionId: string) => ({ type: 'CreditsConsumed', data: { executionId, credits: 1 } });
    const ended = (executionId: string, result: unknown) => ({ type: 'ExecutionCompleted', data: { executionId, result: { result }, durationMs: 3 } });
    const anEvent = fc.tuple(fc.constantFrom('e', 'f'), fc.constantFrom(step, credits, ended), fc.jsonValue());
    fc.assert(
      fc.property(fc.array(anEvent, { minLength: 1, maxLength: 8 }), (picked) => {
        const events = picked.map(([run, make, value], i) => ({ id: `00000000-0000-4000-8000-00000000000${i}`, ...make(run, value) }));
        const sealed = sealEvents(events, sealParts);
        const recorded = asRecorded(events, sealed);
        const texts = recorded.map((r) => (r.metadata.sealed ? ((r.data as Record<string, unknown>)[SEALED_PROPERTY] as string) : null));
        // One box per run with something to seal, in its first sealed event; every other sealed event refers back to it.
        for (const run of ['e', 'f']) {
          const own = texts.filter((t, i) => t !== null && (events[i]!.data as { executionId: string }).executionId === run);
          expect(own.filter((t) => t!.startsWith('sealed:v3:'))).toHaveLength(own.length > 0 ? 1 : 0);
          if (own.length > 0) expect(own[0]!.startsWith('sealed:v3:')).toBe(true);
          expect(own.slice(1).every((t) => /^sealed:in:\d+:\d+$/.test(t!))).toBe(true);
        }
        const plain = JSON.parse(JSON.stringify(events.map((e) => e.data))) as unknown[];
        // Read together, and each alone with only what is before it in the stream (a batch cut inside the append).
        expect(openAll(recorded, recorded).map((o) => o.data)).toEqual(plain);
        for (const [i, r] of recorded.entries()) expect(openAll([r], recorded.slice(0, i)).map((o) => o.data)).toEqual([plain[i]]);
        // One run erased: its events read erased, the other run's still open.
        const opened = openAll(recorded, recorded, (run) => (run === 'e' ? 'erased' : key));
        for (const [i, o] of opened.entries()) {
          const run = (events[i]!.data as { executionId: string }).executionId;
          if (recorded[i]!.metadata.sealed && run === 'e') expect(o.erasedFields.length).toBeGreaterThan(0);
          else expect(o.data).toEqual(plain[i]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('still opens texts of the earlier form, one event\'s fields alone (sealed:v2:)', () => {
    const fields = { result: { answer: 'x' } };
    const v2 = `sealed:v2:${sealValue(key, 'e', 'event-9', fields).slice('sealed:v3:'.length)}`;
    const [stored] = asRecorded([{ id: 'event-9', type: 'ExecutionCompleted', data: { executionId: 'e', [SEALED_PROPERTY]: v2, durationMs: 5 } }], [{ data: { executionId: 'e', [SEALED_PROPERTY]: v2, durationMs: 5 }, sealed: true }]);
    expect(openAll([stored!], [])[0]!.data).toEqual(completed.data);
  });

  it('refuses a part whose holder is missing or holds another run\'s box: the log was changed, which is not an erasure', () => {
    const events = [
      { id: '00000000-0000-4000-8000-000000000001', type: 'ExecutionRequested', data: requested.data },
      { id: '00000000-0000-4000-8000-000000000002', type: 'ExecutionCompleted', data: completed.data },
    ];
    const recorded = asRecorded(events, sealEvents(events, sealParts));
    expect((recorded[1]!.data as Record<string, unknown>)[SEALED_PROPERTY]).toBe('sealed:in:1:1');
    expect(() => openAll([recorded[1]!], [])).toThrow(SealedPartMissingError);
    const otherRun = asRecorded([{ ...events[0]!, data: { ...requested.data, executionId: 'f' } }], sealEvents([{ ...events[0]!, data: { ...requested.data, executionId: 'f' } }], sealParts));
    expect(() => openAll([recorded[1]!], [{ ...otherRun[0]!, revision: recorded[0]!.revision }])).toThrow(SealedPartMissingError);
    // Erased, nothing is looked for: a missing holder reads as erased too.
    expect(openAll([recorded[1]!], [], () => 'erased')[0]!.erasedFields).toEqual(['result']);
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
