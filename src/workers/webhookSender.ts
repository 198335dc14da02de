import { storableTextOfBytes } from '../domain/text/storableText.ts';
import type { AttemptResult } from '../domain/webhooks/retryPolicy.ts';
import type { AddressGuard } from '../outbound/addressGuard.ts';
import { outboundFailure } from '../outbound/outboundFailure.ts';

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
    // No capped reply here: the excerpt above reads at most EXCERPT_BYTES itself.
    const failure = outboundFailure(error, EXCERPT_BYTES);
    if (failure.kind === 'too_large') throw error;
    return { result: { kind: failure.kind }, excerpt: failure.excerpt };
  }
}
