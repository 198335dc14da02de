/**
 * Which parts of which events can hold personal data, and under which run's data key each is sealed
 * (crypto-shredding: erasing the run's key removes the content, while the hash chain, which covers
 * the sealed text, still verifies). Everything else an event says (ids, statuses, timings, tokens,
 * costs, codes, the service's own error messages) stays readable: it is what a run did, kept for audits.
 *
 * A sealed field is stored as one string, `sealed:v1:<base64 of IV, tag and ciphertext of its JSON>`,
 * and the event's metadata says `sealed: true`, so a caller's string that happens to look the same is
 * never taken for one. Read back with the key gone, a field reads as its `erased` value, which the
 * event's schema accepts, so every reader still decodes the event.
 */
export interface SealedField {
  field: string;
  /** The run whose key seals it; null: this event's value is not tied to a run and stays as it is. */
  runOf: (data: Record<string, unknown>) => string | null;
  /** What the field reads as once its run is erased. */
  erased: unknown;
}

const executionIdOf = (data: Record<string, unknown>) => (typeof data.executionId === 'string' ? data.executionId : null);
const ofRun = (field: string, erased: unknown): SealedField => ({ field, runOf: executionIdOf, erased });

export const sealedFields: Readonly<Record<string, readonly SealedField[]>> = {
  ExecutionRequested: [ofRun('message', null), ofRun('parameters', {}), ofRun('attachments', []), ofRun('tools', null)],
  // For llm blocks `input` is the prompt as rendered.
  ExecutionStepStarted: [ofRun('input', null)],
  ExecutionStepCompleted: [ofRun('output', null), ofRun('rejectedReplies', [])],
  ExecutionStepFailed: [ofRun('attempts', [])],
  ExecutionPausedForToolCalls: [ofRun('toolCalls', [])],
  ExecutionResumed: [ofRun('toolResults', null)],
  ExecutionCompleted: [ofRun('result', {})],
  DeliveryCreated: [ofRun('body', '')],
  IdempotentResponseRecorded: [ofRun('body', null)],
  // The excerpts of the original run's result that a replay changed.
  BacktestRunCompared: [ofRun('changes', [])],
};

export const SEALED_PREFIX = 'sealed:v1:';

export const isSealedText = (value: unknown): value is string => typeof value === 'string' && value.startsWith(SEALED_PREFIX);

/** The fields of an event that are sealed under some run's key, with that run: [] when none is. */
export function fieldsToSeal(type: string, data: unknown): { field: string; runId: string }[] {
  const rules = sealedFields[type];
  if (!rules || typeof data !== 'object' || data === null) return [];
  const record = data as Record<string, unknown>;
  const out: { field: string; runId: string }[] = [];
  for (const rule of rules) {
    if (!Object.hasOwn(record, rule.field) || record[rule.field] === undefined) continue;
    const runId = rule.runOf(record);
    if (runId !== null) out.push({ field: rule.field, runId });
  }
  return out;
}

/** The runs whose keys an event's sealed fields need. */
export const runsOf = (type: string, data: unknown) => [...new Set(fieldsToSeal(type, data).map((f) => f.runId))];

/**
 * The event's data with each sealed field replaced by what `seal` makes of it. Pure: the cipher is
 * passed in (with the event's id, so a retried append seals to the same bytes and the log sees the
 * same event).
 */
export function sealData(type: string, data: unknown, seal: (runId: string, field: string, value: unknown) => string): { data: unknown; sealed: boolean } {
  const fields = fieldsToSeal(type, data);
  if (fields.length === 0) return { data, sealed: false };
  const copy = { ...(data as Record<string, unknown>) };
  for (const { field, runId } of fields) copy[field] = seal(runId, field, copy[field]);
  return { data: copy, sealed: true };
}

export const ERASED = Symbol('erased');

/**
 * The event's data with each sealed field opened by `open`, or set to its erased value where `open`
 * answers ERASED (the run's key is gone). `erasedFields` names those.
 */
export function openData(type: string, data: unknown, open: (runId: string, field: string, text: string) => unknown): { data: unknown; erasedFields: string[] } {
  const rules = sealedFields[type];
  if (!rules || typeof data !== 'object' || data === null) return { data, erasedFields: [] };
  const copy = { ...(data as Record<string, unknown>) };
  const erasedFields: string[] = [];
  for (const rule of rules) {
    const text = copy[rule.field];
    if (!isSealedText(text)) continue;
    const runId = rule.runOf(copy);
    const opened = runId === null ? ERASED : open(runId, rule.field, text);
    if (opened === ERASED) {
      copy[rule.field] = rule.erased;
      erasedFields.push(rule.field);
    } else {
      copy[rule.field] = opened;
    }
  }
  return { data: copy, erasedFields };
}
