import { randomBytes } from 'node:crypto';
import sodium from 'sodium-native';
import { SEALED_PREFIX } from '../domain/privacy/sealedFields.ts';
import { openBox, sealBox } from './xchachaBox.ts';

/**
 * A run's payloads sealed under its own data key with XChaCha20-Poly1305 (libsodium, through
 * sodium-native). Node's own ciphers cost some 10 µs a call, most of it making the cipher object,
 * and a run seals one text per event: a three-block run paid more for that than for its appends.
 * libsodium's one-shot call takes under 3 µs.
 *
 * The nonce is the BLAKE2b-192 of the event's id, so a retried append of the same event seals to
 * the same bytes and the log deduplicates it; one key never seals two texts under one nonce, because
 * an event id names one event (the log refuses a second event under an id it holds). The run's id is
 * the associated data: a sealed text moved into another run's event does not open. The text carries
 * its nonce, so it opens without its event.
 */
export const DATA_KEY_BYTES = 32;

/** A data key: its 32 bytes. */
export type DataKey = Buffer;

/**
 * A key in memory of its own: a small Buffer is otherwise a slice of Node's shared 8 KiB pool, and a
 * key kept in a cache keeps its whole slab alive (10,000 cached keys held some 150 MiB of RSS in the
 * bench's 100,000-run section).
 */
export function newDataKey(random: (size: number) => Buffer = randomBytes): DataKey {
  const key = Buffer.alloc(DATA_KEY_BYTES);
  random(DATA_KEY_BYTES).copy(key);
  return key;
}

export function sealValue(key: DataKey, runId: string, eventId: string, value: unknown): string {
  const box = sealBox(key, Buffer.from(JSON.stringify(value ?? null), 'utf8'), runId, (nonce) => sodium.crypto_generichash(nonce, Buffer.from(eventId, 'utf8')));
  return SEALED_PREFIX + box.toString('base64');
}

/** The run's key cannot open this text: it was sealed under another key, or changed since. */
export class SealedValueUnreadableError extends Error {
  constructor(cause: unknown) {
    super("a sealed event does not open with its run's data key: it was changed after it was recorded, or sealed under another key", { cause });
    this.name = 'SealedValueUnreadableError';
  }
}

export function openValue(key: DataKey, runId: string, text: string): Record<string, unknown> {
  try {
    if (!text.startsWith(SEALED_PREFIX)) throw new Error('not a sealed text');
    return JSON.parse(openBox(key, Buffer.from(text.slice(SEALED_PREFIX.length), 'base64'), runId).toString('utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new SealedValueUnreadableError(error);
  }
}
