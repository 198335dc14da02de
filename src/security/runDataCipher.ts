import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { SEALED_PREFIX } from '../domain/privacy/sealedFields.ts';

/**
 * A run's payloads sealed under its own data key (AES-256-GCM). The IV is derived from the key, the
 * event's id and the field (HMAC-SHA-256, first 96 bits): a retried append of the same event seals to
 * the same bytes, so the log deduplicates it; one key never seals two texts under one IV, because an
 * event id and field name one value.
 */
export const DATA_KEY_BYTES = 32;

export const newDataKey = () => randomBytes(DATA_KEY_BYTES);

export function sealValue(key: Buffer, eventId: string, field: string, value: unknown): string {
  const iv = createHmac('sha256', key).update(`${eventId}\u0000${field}`).digest().subarray(0, 12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value ?? null), 'utf8'), cipher.final()]);
  return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/** The run's key cannot open this text: it was sealed under another key, or changed since. */
export class SealedValueUnreadableError extends Error {
  constructor(field: string, cause: unknown) {
    super(`a sealed field (${field}) does not open with its run's data key: it was changed after it was recorded, or sealed under another key`, { cause });
    this.name = 'SealedValueUnreadableError';
  }
}

export function openValue(key: Buffer, field: string, text: string): unknown {
  try {
    const bytes = Buffer.from(text.slice(SEALED_PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'));
  } catch (error) {
    throw new SealedValueUnreadableError(field, error);
  }
}
