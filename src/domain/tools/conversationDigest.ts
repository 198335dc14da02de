import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth: the same conversation always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The digest of a tool-calling conversation as recorded at a pause. The service keeps no
 * conversation, only this; a resume must send back exactly these messages (plus the tool results).
 */
export const conversationDigest = (messages: unknown[]) => createHash('sha256').update(canonicalJson(messages)).digest('hex');
