import { ERASED, SEALED_PARTS_PREFIX, SEALED_PREFIX, SEALED_PROPERTY, parsePartReference, runToOpen } from '../domain/privacy/sealedFields.ts';
import { type RunDataCipher, SealedValueUnreadableError } from '../security/runDataCipher.ts';
import type { KeyState } from '../security/runDataKeys.ts';
import type { RecordedEvent } from './eventStore.ts';

/** Where an event of a stream is found among events read together. */
export const revisionKey = (streamId: string, revision: number) => `${streamId}\n${revision}`;

/** The holder a `sealed:in:` text of this event names (its revision and stream), or null for any other text. */
export function holderRevision(event: RecordedEvent): { streamId: string; revision: number } | null {
  const text = (event.data as Record<string, unknown> | null)?.[SEALED_PROPERTY];
  const reference = typeof text === 'string' ? parsePartReference(text) : null;
  return reference === null ? null : { streamId: event.streamId, revision: event.revision - reference.back };
}

/**
 * Opens the sealed texts of events read together (sealedFields.ts): one event's fields (`v2`), the
 * first part of a box (`v3`), or the part of an earlier event's box that a `sealed:in:` text names;
 * each box opened once however many of its parts are read. `keyOf`: the run's key state (anything
 * but a key reads as erased); `holderOf`: the event, as stored, that many revisions before `event`
 * in its stream. A reference whose holder is missing, or holds no box of the same run, does not
 * open: the log was changed (or cut) after it was written, and that is an error, not an erasure.
 */
export function createSealedTextOpener(cipher: RunDataCipher, keyOf: (runId: string) => KeyState, holderOf: (event: RecordedEvent, back: number) => RecordedEvent | undefined) {
  const boxes = new Map<RecordedEvent, unknown[]>();
  const partsOf = (holder: RecordedEvent, key: Buffer, runId: string, text: string) => {
    let parts = boxes.get(holder);
    if (parts === undefined) {
      const opened = cipher.open(key, runId, text);
      if (!Array.isArray(opened)) throw new SealedValueUnreadableError(new Error('a sealed:v3 text that is not a list of parts'));
      parts = opened;
      boxes.set(holder, parts);
    }
    return parts;
  };
  return (event: RecordedEvent) =>
    (runId: string, text: string): Record<string, unknown> | typeof ERASED => {
      const key = keyOf(runId);
      // No key row for a sealed event: nothing can open it, exactly as after an erasure.
      if (typeof key !== 'object') return ERASED;
      if (text.startsWith(SEALED_PREFIX)) return asFields(cipher.open(key, runId, text));
      if (text.startsWith(SEALED_PARTS_PREFIX)) return asFields(partsOf(event, key, runId, text)[0]);
      const reference = parsePartReference(text);
      if (reference === null) throw new SealedValueUnreadableError(new Error(`not a sealed text: ${text.slice(0, 20)}`));
      const holder = holderOf(event, reference.back);
      const held = holder && runToOpen(holder.data) === runId ? (holder.data as Record<string, unknown>)[SEALED_PROPERTY] : undefined;
      if (typeof held !== 'string' || !held.startsWith(SEALED_PARTS_PREFIX)) {
        throw new SealedPartMissingError(event, reference.back);
      }
      return asFields(partsOf(holder!, key, runId, held)[reference.part]);
    };
}

function asFields(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SealedValueUnreadableError(new Error('a sealed part that is not an object of fields'));
  return value as Record<string, unknown>;
}

/** A sealed event's fields are in an earlier event's box, and that event is not there (or holds none of its run). */
export class SealedPartMissingError extends Error {
  constructor(event: RecordedEvent, back: number) {
    super(`event ${event.id} (${event.streamId} revision ${event.revision}) keeps its sealed fields in the event ${back} revision(s) before it, which holds no sealed box of its run: the log was changed or cut after it was written`);
    this.name = 'SealedPartMissingError';
  }
}
