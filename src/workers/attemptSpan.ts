import { type Context, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_URL_FULL } from '@opentelemetry/semantic-conventions';
import type { AttemptResult } from '../domain/webhooks/retryPolicy.ts';
import { SEQFLOW } from '../observability/spanAttributes.ts';

/**
 * A webhook attempt's client span (HTTP semantic conventions: named by its method), in the trace of
 * the run the delivery is about. The URL is recorded without its query, where receivers put tokens.
 */
export function attemptSpan(tracer: Tracer, parent: Context, attempt: { deliveryId: string; url: string; event: string; attempt: number }): Span {
  const url = new URL(attempt.url);
  return tracer.startSpan(
    'POST',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: 'POST',
        [ATTR_URL_FULL]: `${url.origin}${url.pathname}`,
        [ATTR_SERVER_ADDRESS]: url.hostname,
        [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        [SEQFLOW.deliveryId]: attempt.deliveryId,
        [SEQFLOW.webhookEvent]: attempt.event,
        [SEQFLOW.attempt]: attempt.attempt,
      },
    },
    parent,
  );
}

/** Ends an attempt's span with its outcome: the receiver's status, or why none came (`error.type`). */
export function endAttemptSpan(span: Span, result: AttemptResult) {
  if (result.kind === 'response') span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
  // For a client, any answer but a success is an error (the delivery will be retried or give up).
  const error = result.kind === 'response' ? (result.status < 300 ? undefined : String(result.status)) : result.kind;
  if (error) {
    span.setAttribute(ATTR_ERROR_TYPE, error);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
