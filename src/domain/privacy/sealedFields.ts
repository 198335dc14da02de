/**
 * Which parts of which events can hold personal data (crypto-shredding: erasing the run's data key
 * removes the content, while the hash chain, which covers the sealed text, still verifies).
 * Everything else an event says (ids, statuses, timings, tokens, costs, codes, the service's own
 * error messages) stays readable: it is what a run did, kept for audits.
 *
 * An event's personal fields are stored together as one sealed text under its run's key, in the
 * property `$sealed` (`sealed:v2:<base64 of nonce, ciphertext and tag of their JSON>`), and taken out of
 * the data; the event's metadata says `sealed: true`, so a caller's data that happens to look the
 * same is never taken for one. One cipher call per event (libsodium's: some 3 µs; src/security/runDataCipher.ts).
 * Read back with the key gone, each field reads as its `erased` value, which the event's schema
 * accepts, so every reader still decodes the event.
 */
export interface SealedField {
  field: string;
  /** What the field reads as once its run is erased. */
  erased: unknown;
}

const field = (name: string, erased: unknown): SealedField => ({ field: name, erased });

/** Every rule's fields are sealed under the key of the run the event names (`executionId`). */
export const sealedFields: Readonly<Record<string, readonly SealedField[]>> = {
  ExecutionRequested: [field('message', null), field('parameters', {}), field('attachments', []), field('tools', null)],
  // For llm blocks `input` is the prompt as rendered.
  ExecutionStepStarted: [field('input', null)],
  // `input`: a start the completion tells (joinedStepStarts.ts).
  ExecutionStepCompleted: [field('output', null), field('rejectedReplies', []), field('input', null)],
  ExecutionStepFailed: [field('attempts', [])],
  // The values a condition read come from the run's input and outputs.
  ExecutionStepSkipped: [field('values', {})],
  ExecutionPausedForToolCalls: [field('toolCalls', [])],
  ExecutionResumed: [field('toolResults', null)],
  ExecutionCompleted: [field('result', {})],
  DeliveryCreated: [field('body', '')],
  IdempotentResponseRecorded: [field('body', null)],
  // The excerpts of the original run's result that a replay changed.
  BacktestRunCompared: [field('changes', [])],
};

export const SEALED_PROPERTY = '$sealed';
export const SEALED_PREFIX = 'sealed:v2:';

const asRecord = (data: unknown) => (typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null);

/** Each type's sealed field names, for the per-event checks (a Set look-up instead of a scan of the rules). */
const sealedNames: ReadonlyMap<string, ReadonlySet<string>> = new Map(Object.entries(sealedFields).map(([type, rules]) => [type, new Set(rules.map((r) => r.field))]));

/** The run whose key seals an event's personal fields, or null when the event has none to seal. */
export function runToSeal(type: string, data: unknown): string | null {
  const rules = sealedFields[type];
  const record = asRecord(data);
  if (!rules || !record || typeof record.executionId !== 'string') return null;
  return rules.some((r) => record[r.field] !== undefined) ? record.executionId : null;
}

/** The run whose key opens a stored event's sealed text, or null when it holds none. */
export function runToOpen(data: unknown): string | null {
  const record = asRecord(data);
  return record && typeof record[SEALED_PROPERTY] === 'string' && typeof record.executionId === 'string' ? record.executionId : null;
}

/**
 * The event's data with its personal fields taken out and sealed together by `seal` (given their
 * JSON-able object). Pure: the cipher is passed in. The rest is copied key by key rather than
 * spread and `delete`d: a deleted property turns the object into a slow dictionary, which every
 * later step (hashing, serializing) pays for.
 */
export function sealData(type: string, data: unknown, seal: (runId: string, fields: Record<string, unknown>) => string): { data: unknown; sealed: boolean } {
  const runId = runToSeal(type, data);
  if (runId === null) return { data, sealed: false };
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
  rest[SEALED_PROPERTY] = seal(runId, fields);
  return { data: rest, sealed: true };
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
  // Copied key by key, as in sealData: a rest pattern or a spread of a computed object costs more on every read.
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
