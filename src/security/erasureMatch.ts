import { createHmac, randomBytes } from 'node:crypto';
import type { ErasureMatch } from '../domain/execution/executionEvents.ts';
import type { RunSelector } from '../domain/privacy/runSelector.ts';

/**
 * What an erasure by content records of its selector (RunDataErased.match): the field, and an
 * HMAC-SHA256 of the value under a salt drawn for this command. One salt for all the runs one
 * command erases, so they read as one request; another command's hash of the same value differs,
 * so the log cannot be searched for a value across requests.
 */
export function erasureMatchOf(selector: RunSelector, salt = randomBytes(16).toString('base64url')): ErasureMatch {
  return { field: `input.${selector.path.join('.')}`, salt, valueHash: matchedValueHash(salt, selector.value) };
}

/** The hash an erasure recorded for a value: an auditor given the value and the event's salt checks it this way. */
export const matchedValueHash = (salt: string, value: string) => createHmac('sha256', salt).update(value, 'utf8').digest('hex');
