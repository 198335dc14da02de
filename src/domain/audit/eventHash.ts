import { createHash } from 'node:crypto';
import { canonicalJson } from './canonicalJson.ts';

/** The hash before a stream's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** What of an event its hash covers: everything the writer chose (not the position or time the log assigns). */
export interface HashedContent {
  streamId: string;
  id: string;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * SHA-256 of the event's RFC 8785 canonical JSON: the same for the object a writer appended and for
 * the one read back (key order, number spelling and whitespace do not matter), different after any
 * change to a value.
 */
export function contentHash(event: HashedContent): string {
  const text = canonicalJson({ streamId: event.streamId, id: event.id, type: event.type, schemaVersion: event.schemaVersion, data: event.data, metadata: event.metadata });
  if (text === undefined) throw new Error(`event ${event.id} cannot be canonicalized`);
  return sha256(text);
}

/**
 * An event's link in its stream's chain: the previous link, its revision and its content hash.
 * Changing, removing or reordering an event breaks every link from it on. (PostgreSQL computes the
 * same function in `seqflow_append`; this is the definition verification uses.)
 */
export const chainHash = (previous: string, revision: number, content: string) => sha256(`${previous}:${revision}:${content}`);
