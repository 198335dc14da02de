import { storableExcerpt, storableTextOfBytes } from '../domain/text/storableText.ts';
import type { AttemptResult } from '../domain/webhooks/retryPolicy.ts';
import { type AddressGuard, BlockedAddressError } from '../outbound/addressGuard.ts';

const EXCERPT_BYTES = 512;

/**
 * One POST of a delivery through the outbound guard (redirects not followed, `timeoutMs` for the
 * whole attempt): the receiver's status and a bounded excerpt of its answer (storable text, whatever
 * bytes it sent), or why none came.
 */
export async function sendWebhook(guard: AddressGuard, url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ result: AttemptResult; excerpt: string | null }> {
  try {
    const response = await guard.fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    // Bytes, not text: a receiver's page may be no UTF-8 at all, or hold NULs, or cut a character.
    const chunks: Uint8Array[] = [];
    let read = 0;
    const reader = response.body?.getReader();
    while (reader && read < EXCERPT_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      read += value.byteLength;
    }
    await reader?.cancel().catch(() => undefined);
    const excerpt = storableTextOfBytes(Buffer.concat(chunks), EXCERPT_BYTES);
    return { result: { kind: 'response', status: response.status }, excerpt: excerpt || null };
  } catch (error) {
    for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
      if (e instanceof BlockedAddressError) return { result: { kind: 'blocked_address' }, excerpt: e.message };
    }
    const name = (error as Error).name;
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') {
      return { result: { kind: 'timeout' }, excerpt: 'timed out' };
    }
    return { result: { kind: 'network_error' }, excerpt: storableExcerpt((error as { cause?: Error }).cause?.message ?? (error as Error).message, EXCERPT_BYTES) };
  }
}
