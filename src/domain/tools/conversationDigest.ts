import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonicalJson.ts';

/**
 * The digest of a tool-calling conversation as recorded at a pause. The service keeps no
 * conversation, only this; a resume must send back exactly these messages (plus the tool results).
 */
export const conversationDigest = (messages: unknown[]) => createHash('sha256').update(canonicalJson(messages)).digest('hex');
