import type { HttpOutcome } from '../../domain/blocks/http/httpEvents.ts';
import type { RenderedRequest } from '../../domain/blocks/http/renderedRequest.ts';
import { storableTextOfBytes } from '../../domain/text/storableText.ts';
import { type Fetch, cappedReplies } from '../../outbound/cappedReply.ts';
import { outboundFailure } from '../../outbound/outboundFailure.ts';

const EXCERPT_BYTES = 512;

export interface SentRequest {
  outcome: HttpOutcome;
  status: number | null;
  contentType: string | null;
  /** The whole response body (at most the cap), when one came. */
  body: Buffer | null;
  /** What to record of it: the start of the body, or why none came (storable text). */
  excerpt: string | null;
}

/**
 * One attempt of a block's request through the outbound guard's fetch (redirects never followed):
 * the whole exchange, body included, within `timeoutMs` (a server dripping its answer a byte at a
 * time times out like a silent one), the body read to at most `maxBytes`. Never throws for what
 * the server or the network did: each is an outcome.
 */
export async function sendRequest(fetch: Fetch, request: RenderedRequest, idempotencyKey: string | null, options: { timeoutMs: number; maxBytes: number }): Promise<SentRequest> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  try {
    const response = await cappedReplies(fetch, options.maxBytes)(request.url, { method: request.method, headers, body: request.body, redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs) });
    const body = Buffer.from(await response.arrayBuffer());
    return { outcome: 'response', status: response.status, contentType: response.headers.get('content-type'), body, excerpt: storableTextOfBytes(body.subarray(0, EXCERPT_BYTES), EXCERPT_BYTES) || null };
  } catch (error) {
    const failure = outboundFailure(error, EXCERPT_BYTES);
    return { outcome: failure.kind, excerpt: failure.excerpt, status: null, contentType: null, body: null };
  }
}
