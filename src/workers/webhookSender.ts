import type { AttemptResult } from '../domain/webhooks/retryPolicy.ts';
import { type AddressGuard, BlockedAddressError } from '../outbound/addressGuard.ts';

const EXCERPT_BYTES = 512;

/**
 * One POST of a delivery through the outbound guard (redirects not followed, `timeoutMs` for the
 * whole attempt): the receiver's status and a bounded excerpt of its answer, or why none came.
 */
export async function sendWebhook(guard: AddressGuard, url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ result: AttemptResult; excerpt: string | null }> {
  try {
    const response = await guard.fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    let excerpt = '';
    const reader = response.body?.getReader();
    while (reader && excerpt.length < EXCERPT_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      excerpt += Buffer.from(value).toString('utf8');
    }
    await reader?.cancel().catch(() => undefined);
    return { result: { kind: 'response', status: response.status }, excerpt: excerpt ? excerpt.slice(0, EXCERPT_BYTES) : null };
  } catch (error) {
    for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
      if (e instanceof BlockedAddressError) return { result: { kind: 'blocked_address' }, excerpt: e.message };
    }
    const name = (error as Error).name;
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') {
      return { result: { kind: 'timeout' }, excerpt: 'timed out' };
    }
    return { result: { kind: 'network_error' }, excerpt: ((error as { cause?: Error }).cause?.message ?? (error as Error).message).slice(0, EXCERPT_BYTES) };
  }
}
