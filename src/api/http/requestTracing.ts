import { type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contextOf, traceparentOf } from '../../observability/traceContext.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span, from `onRequest` to the answer. */
    traceSpan: Span | null;
  }
}

/**
 * A server span per request (HTTP semantic conventions, named by the route's template), continuing
 * the caller's trace when it sends `traceparent`. Written here rather than taken from
 * `@fastify/otel`: that instrumentation relies on the global tracer provider, context manager and
 * propagator, which this service does not install (see tracing.ts).
 */
export function installRequestTracing(app: FastifyInstance, tracer: Tracer) {
  app.decorateRequest('traceSpan', null);
  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url;
    const parent = contextOf({ traceparent: request.headers.traceparent, tracestate: request.headers.tracestate });
    const attributes = { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: request.url.split('?')[0], ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}) };
    request.traceSpan = tracer.startSpan(route ? `${request.method} ${route}` : request.method, { kind: SpanKind.SERVER, attributes }, parent);
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = request.traceSpan;
    if (!span) return;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, reply.statusCode);
    // A caller's mistake (4xx) is not the server span's error (HTTP semantic conventions).
    if (reply.statusCode >= 500) {
      span.setAttribute(ATTR_ERROR_TYPE, String(reply.statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
  app.addHook('onRequestAbort', async (request) => {
    request.traceSpan?.setAttribute(ATTR_ERROR_TYPE, 'aborted');
    request.traceSpan?.end();
  });
}

/** What a request's work records of it: its id (X-Request-Id) and its trace, for the metadata of the events it appends. */
export const requestOrigin = (request: FastifyRequest) => ({ requestId: request.id, traceparent: request.traceSpan ? traceparentOf(request.traceSpan) : undefined });
