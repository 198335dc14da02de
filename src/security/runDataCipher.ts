import { randomBytes } from 'node:crypto';
import sodium from 'sodium-native';
import { SEALED_PARTS_PREFIX, SEALED_PREFIX } from '../domain/privacy/sealedFields.ts';
import { NONCE_BYTES, TAG_BYTES, openBox, sealBox } from './xchachaBox.ts';

/**
 * A run's payloads sealed under its own data key with XChaCha20-Poly1305 (libsodium, through
 * sodium-native). Node's own ciphers cost some 10 µs a call, most of it making the cipher object,
 * and a run seals one text per event: a three-block run paid more for that than for its appends.
 * libsodium's one-shot call takes under 3 µs. Texts are written as `sealed:v3:` (what is sealed is
 * the JSON of a run's parts in one append: sealedFields.ts); `sealed:v2:` texts, sealed the same way,
 * are opened too.
 *
 * The nonce is the BLAKE2b-192 of the id of the event that holds the text, so a retried append of
 * the same events seals to the same bytes and the log deduplicates it; one key never seals two texts
 * under one nonce, because an event id names one event (the log refuses a second event under an id
 * it holds) and an event holds one text. The run's id is
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
  const box = sealBox(key, Buffer.from(JSON.stringify(value ?? null), 'utf8'), runId, (nonce) => fillNonce(nonce, eventId));
  return SEALED_PARTS_PREFIX + box.toString('base64');
}

/** The sealed part of a text of either form (its box's base64), or null when it is not a sealed text. */
function boxOf(text: string): string | null {
  // Each prefix by its own length: the two need not stay the same length.
  if (text.startsWith(SEALED_PARTS_PREFIX)) return text.substring(SEALED_PARTS_PREFIX.length);
  return text.startsWith(SEALED_PREFIX) ? text.substring(SEALED_PREFIX.length) : null;
}

/** An event's nonce: the BLAKE2b-192 of its id (module header). */
function fillNonce(nonce: Buffer, eventId: string) {
  sodium.crypto_generichash(nonce, Buffer.from(eventId, 'utf8'));
}

/** The largest value (its JSON's bytes) a RunDataCipher seals and opens in the buffers it keeps. */
const KEPT_BYTES = 8192;

/**
 * sealValue and openValue for the log's hot path, with the same texts: a value's JSON bytes and its
 * box are written into buffers the cipher keeps rather than into new ones (a run's three sealed
 * events allocated six Buffers each, which the collector then found beside every run). Values
 * larger than those buffers take sealValue's and openValue's way. Not reentrant: each call is
 * synchronous, done before the next begins.
 */
export interface RunDataCipher {
  seal(key: DataKey, runId: string, eventId: string, value: unknown): string;
  open(key: DataKey, runId: string, text: string): unknown;
}

export function createRunDataCipher(): RunDataCipher {
  // The box (nonce, ciphertext, tag) in the first half, the value's bytes in the second.
  const kept = Buffer.allocUnsafe(2 * KEPT_BYTES);
  const nonce = kept.subarray(0, NONCE_BYTES);
  const message = (length: number) => kept.subarray(KEPT_BYTES, KEPT_BYTES + length);
  return {
    seal(key, runId, eventId, value) {
      const json = JSON.stringify(value ?? null);
      // At most three bytes of UTF-8 per UTF-16 unit: a value that may not fit takes the allocating way.
      if (json.length * 3 + NONCE_BYTES + TAG_BYTES > KEPT_BYTES) return sealValue(key, runId, eventId, value);
      const length = kept.write(json, KEPT_BYTES, 'utf8');
      fillNonce(nonce, eventId);
      const boxLength = NONCE_BYTES + length + TAG_BYTES;
      sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(kept.subarray(NONCE_BYTES, boxLength), message(length), Buffer.from(runId, 'utf8'), null, nonce, key);
      return SEALED_PARTS_PREFIX + kept.toString('base64', 0, boxLength);
    },
    open(key, runId, text) {
      // Base64 of the kept half at most (4 characters per 3 bytes), and a sealed text: else the allocating way, which also says what is wrong.
      const box = boxOf(text);
      if (box === null || box.length * 0.75 > KEPT_BYTES) return openValue(key, runId, text);
      const boxLength = kept.write(box, 0, 'base64');
      if (boxLength < NONCE_BYTES + TAG_BYTES) return openValue(key, runId, text);
      const length = boxLength - NONCE_BYTES - TAG_BYTES;
      try {
        sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(message(length), null, kept.subarray(NONCE_BYTES, boxLength), Buffer.from(runId, 'utf8'), nonce, key);
        return JSON.parse(kept.toString('utf8', KEPT_BYTES, KEPT_BYTES + length)) as unknown;
      } catch (error) {
        throw new SealedValueUnreadableError(error);
      }
    },
  };
}

/** The run's key cannot open this text: it was sealed under another key, or changed since. */
export class SealedValueUnreadableError extends Error {
  constructor(cause: unknown) {
    super("a sealed event does not open with its run's data key: it was changed after it was recorded, or sealed under another key", { cause });
    this.name = 'SealedValueUnreadableError';
  }
}

export function openValue(key: DataKey, runId: string, text: string): unknown {
  try {
    const box = boxOf(text);
    if (box === null) throw new Error('not a sealed text');
    return JSON.parse(openBox(key, Buffer.from(box, 'base64'), runId).toString('utf8')) as unknown;
  } catch (error) {
    throw new SealedValueUnreadableError(error);
  }
}
