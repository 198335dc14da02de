import { type KeyObject, createCipheriv, createDecipheriv, createSecretKey, hash, randomBytes } from 'node:crypto';
import { SEALED_PREFIX } from '../domain/privacy/sealedFields.ts';

/**
 * A run's payloads sealed under its own data key (AES-256-GCM). The IV is the event's id (a UUID's
 * first and last 12 hex digits, 96 random bits of a v4 UUID; any other id: its SHA-256): a retried
 * append of the same event seals to the same bytes, so the log deduplicates it; one key never seals
 * two texts under one IV, because an event id names one event (the log refuses a second event under
 * an id it holds) and two random UUIDs of one run share 96 bits by chance only (2^-96).
 */
export const DATA_KEY_BYTES = 32;

/**
 * A data key as the ciphers take it: a KeyObject, made once per key (a raw Buffer is turned into
 * one on every cipher call, which cost more than the cipher itself in the bench's profile).
 */
export type DataKey = KeyObject;

export const newDataKey = (random: (size: number) => Buffer = randomBytes): DataKey => createSecretKey(random(DATA_KEY_BYTES));
export const dataKeyOf = (bytes: Buffer): DataKey => createSecretKey(bytes);
export const bytesOf = (key: DataKey): Buffer => key.export();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An event id's 96 bits as an IV: a UUID's first and last 12 hex digits, or the SHA-256 of any other id. */
function ivOf(eventId: string): Buffer {
  return UUID.test(eventId) ? Buffer.from(eventId.slice(0, 8) + eventId.slice(9, 13) + eventId.slice(24), 'hex') : hash('sha256', eventId, 'buffer').subarray(0, 12);
}

export function sealValue(key: DataKey, eventId: string, value: unknown): string {
  const iv = ivOf(eventId);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const head = cipher.update(JSON.stringify(value ?? null), 'utf8');
  const tail = cipher.final();
  return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), head, tail], 28 + head.length + tail.length).toString('base64');
}

/** The run's key cannot open this text: it was sealed under another key, or changed since. */
export class SealedValueUnreadableError extends Error {
  constructor(cause: unknown) {
    super("a sealed event does not open with its run's data key: it was changed after it was recorded, or sealed under another key", { cause });
    this.name = 'SealedValueUnreadableError';
  }
}

export function openValue(key: DataKey, text: string): Record<string, unknown> {
  try {
    if (!text.startsWith(SEALED_PREFIX)) throw new Error('not a sealed text');
    const bytes = Buffer.from(text.slice(SEALED_PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new SealedValueUnreadableError(error);
  }
}
