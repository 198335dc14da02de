import { eventDefinitions } from '../domainEvent.ts';
import { eventPrivacy } from './eventPrivacy.ts';

/**
 * Which parts of which events can hold personal data (crypto-shredding: erasing the run's data key
 * removes the content, while the hash chain, which covers the sealed text, still verifies). The
 * table is made from the event schemas' own marks (dataClass.ts): a field is sealed because its
 * schema says `personal`, and nothing else decides it. Everything else an event says (ids,
 * statuses, timings, tokens, costs, codes, the service's own error messages) stays readable: it is
 * what a run did, kept for audits.
 *
 * An event's personal fields are taken out of its data and sealed under its run's key, in the
 * property `$sealed`; the event's metadata says `sealed: true`, so a caller's data that happens to
 * look the same is never taken for one. The sealed events of one run in one append are sealed
 * together, in one box (`sealed:v3:<base64 of nonce, ciphertext and tag of the JSON array of their
 * fields>`) held by the first of them; each later one says which part of it is its own and how many
 * revisions back its holder is (`sealed:in:<back>:<part>`: one append's events take consecutive
 * revisions of its stream). One cipher call per run and append instead of one per event: a
 * passthrough run's three sealed events cost three calls, three nonces and three framings, which made
 * most of what sealing cost it (docs/performance.md). Texts of the previous form, one event's fields
 * alone (`sealed:v2:`), are still read. Read back with the key gone, each field reads as its `erased`
 * value, which the event's schema accepts, so every reader still decodes the event.
 */
export interface SealedField {
  field: string;
  /** What the field reads as once its run is erased. */
  erased: unknown;
}

/** Every event type with personal fields, and those fields in its schema's order: sealed under the key of the run the event names (`executionId`). */
export const sealedFields: Readonly<Record<string, readonly SealedField[]>> = Object.freeze(
  Object.fromEntries(eventDefinitions.flatMap((definition) => {
    const fields = eventPrivacy(definition.schema).personal;
    return fields.length > 0 ? [[definition.type, Object.freeze(fields)] as const] : [];
  })),
);

export const SEALED_PROPERTY = '$sealed';
/** One event's fields alone: the form written before runs' events were sealed together (read only). */
export const SEALED_PREFIX = 'sealed:v2:';
/** A box of the fields of a run's sealed events in one append, in order: the holder's own first. */
export const SEALED_PARTS_PREFIX = 'sealed:v3:';
/** An event whose fields are a part of a box that an earlier event of the same append holds. */
export const SEALED_PART_PREFIX = 'sealed:in:';

/** Where an event's fields are: `part` of the box held `back` revisions before it in its stream. */
export interface PartReference {
  back: number;
  part: number;
}

export const partReferenceText = (reference: PartReference) => `${SEALED_PART_PREFIX}${reference.back}:${reference.part}`;

/** The reference a `sealed:in:` text makes, or null when the text is not one (or is malformed). */
export function parsePartReference(text: string): PartReference | null {
  if (!text.startsWith(SEALED_PART_PREFIX)) return null;
  const match = /^(\d{1,9}):(\d{1,9})$/.exec(text.slice(SEALED_PART_PREFIX.length));
  if (!match) return null;
  const back = Number(match[1]);
  const part = Number(match[2]);
  return back >= 1 && part >= 1 ? { back, part } : null;
}

const asRecord = (data: unknown) => (typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null);

/** Each type's sealed field names, for the per-event checks (a Set look-up instead of a scan of the rules). */
const sealedNames: ReadonlyMap<string, ReadonlySet<string>> = new Map(Object.entries(sealedFields).map(([type, rules]) => [type, new Set(rules.map((r) => r.field))]));

/**
 * The run whose key seals an event's personal fields, or null when the event has none to seal: a
 * personal field that is absent or null holds nothing (a failure with no detail, an attempt with no
 * excerpt), and an event with nothing else personal is stored as it is, at no cipher call.
 */
export function runToSeal(type: string, data: unknown): string | null {
  const rules = sealedFields[type];
  const record = asRecord(data);
  if (!rules || !record || typeof record.executionId !== 'string') return null;
  return rules.some((r) => record[r.field] !== undefined && record[r.field] !== null) ? record.executionId : null;
}

/** The run whose key opens a stored event's sealed text, or null when it holds none. */
export function runToOpen(data: unknown): string | null {
  const record = asRecord(data);
  return record && typeof record[SEALED_PROPERTY] === 'string' && typeof record.executionId === 'string' ? record.executionId : null;
}

/**
 * The event's data with its personal fields taken out (`rest`, with `$sealed` last, still to be
 * filled in) and those fields, or null when it has none to seal. The rest is copied key by key rather
 * than spread and `delete`d: a deleted property turns the object into a slow dictionary, which every
 * later step (hashing, serializing) pays for.
 */
function splitSealed(type: string, data: unknown): { runId: string; rest: Record<string, unknown>; fields: Record<string, unknown> } | null {
  const runId = runToSeal(type, data);
  if (runId === null) return null;
  const names = sealedNames.get(type)!;
  const rest: Record<string, unknown> = {};
  const fields: Record<string, unknown> = {};
  const source = data as Record<string, unknown>;
  // Object.keys, not Object.entries: no pair array per property.
  for (const name of Object.keys(source)) {
    const value = source[name];
    if (!names.has(name)) rest[name] = value;
    else if (value !== undefined) fields[name] = value;
  }
  rest[SEALED_PROPERTY] = '';
  return { runId, rest, fields };
}

/**
 * The data of one append's events, each with its personal fields taken out, a run's sealed together
 * by `sealParts` (given the run, the holder's event id and the fields of each of its events, in
 * order) into the first of them, the others referring to it (module header). Pure: the cipher is
 * passed in.
 */
export function sealEvents(
  events: readonly { id: string; type: string; data: unknown }[],
  sealParts: (runId: string, holderEventId: string, parts: Record<string, unknown>[]) => string,
): { data: unknown; sealed: boolean }[] {
  const sealedOnes: { data: unknown; sealed: boolean }[] = [];
  const runs = new Map<string, { holder: number; rest: Record<string, unknown>; parts: Record<string, unknown>[] }>();
  for (const [i, event] of events.entries()) {
    const split = splitSealed(event.type, event.data);
    if (split === null) {
      sealedOnes.push({ data: event.data, sealed: false });
      continue;
    }
    const run = runs.get(split.runId);
    if (run === undefined) runs.set(split.runId, { holder: i, rest: split.rest, parts: [split.fields] });
    else {
      split.rest[SEALED_PROPERTY] = partReferenceText({ back: i - run.holder, part: run.parts.length });
      run.parts.push(split.fields);
    }
    sealedOnes.push({ data: split.rest, sealed: true });
  }
  for (const [runId, run] of runs) run.rest[SEALED_PROPERTY] = sealParts(runId, events[run.holder]!.id, run.parts);
  return sealedOnes;
}

export const ERASED = Symbol('erased');

/**
 * The event's data with its sealed fields put back as `open` gives them, or set to their erased
 * values where `open` answers ERASED (the run's key is gone); `erasedFields` names those.
 */
export function openData(type: string, data: unknown, open: (runId: string, text: string) => Record<string, unknown> | typeof ERASED): { data: unknown; erasedFields: string[] } {
  const runId = runToOpen(data);
  if (runId === null) return { data, erasedFields: [] };
  const record = data as Record<string, unknown>;
  const opened = open(runId, record[SEALED_PROPERTY] as string);
  // Copied key by key, as in splitSealed: a rest pattern or a spread of a computed object costs more on every read.
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(record)) if (name !== SEALED_PROPERTY) out[name] = record[name];
  if (opened !== ERASED) {
    for (const name of Object.keys(opened)) out[name] = opened[name];
    return { data: out, erasedFields: [] };
  }
  const rules = sealedFields[type] ?? [];
  for (const rule of rules) out[rule.field] = rule.erased;
  return { data: out, erasedFields: rules.map((r) => r.field) };
}
