import { BlockedAddressError } from './addressGuard.ts';
import { ReplyTooLargeError } from './cappedReply.ts';
import { storableExcerpt } from '../domain/text/storableText.ts';

/** Why an outbound request got no answer, and what to record of it (storable text, at most `maxUnits`). */
export interface OutboundFailure {
  kind: 'blocked_address' | 'too_large' | 'timeout' | 'network_error';
  excerpt: string;
}

/**
 * What a failed `fetch` through the address guard (or a capped reply's read) met: the guard's
 * refusal or the cap, found anywhere in the error's causes; a timeout (the request's signal, or
 * undici's connect and header timeouts); else the network's own words. One reading for every
 * outbound request the service makes (webhook deliveries, http blocks).
 */
export function outboundFailure(error: unknown, maxUnits: number): OutboundFailure {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof BlockedAddressError) return { kind: 'blocked_address', excerpt: storableExcerpt(e.message, maxUnits) };
    if (e instanceof ReplyTooLargeError) return { kind: 'too_large', excerpt: e.message };
  }
  const name = (error as Error).name;
  const code = (error as { cause?: { code?: string } }).cause?.code;
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return { kind: 'timeout', excerpt: 'timed out' };
  return { kind: 'network_error', excerpt: storableExcerpt((error as { cause?: Error }).cause?.message ?? (error as Error).message, maxUnits) };
}
