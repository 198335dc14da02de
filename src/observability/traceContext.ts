import { type Context, ROOT_CONTEXT, type Span, type SpanOptions, SpanStatusCode, type Tracer, defaultTextMapGetter, defaultTextMapSetter, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

/**
 * Trace context as W3C Trace Context (`traceparent`, `tracestate`): read from a request's headers or
 * an event's metadata, written to the metadata of the events a span's work appends. Explicit, with no
 * global propagator: see tracing.ts.
 */
const propagator = new W3CTraceContextPropagator();

/** The context a received or stored `traceparent` names (its remote span the parent of what continues it); the root context for none or a malformed one. */
export function contextOf(carrier: { traceparent?: string | string[] | undefined; tracestate?: string | string[] | undefined }): Context {
  return propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

/** A recorded span's `traceparent`, for the metadata of the events its work appends; none when tracing is off. */
export function traceparentOf(span: Span): string | undefined {
  if (!span.isRecording()) return undefined;
  const carrier: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

/** Marks a span failed: the error's code (a BlockFailure's or ApiError's) as `error.type`, its message as the status. */
export function failSpan(span: Span, error: unknown) {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown');
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof message === 'string' ? message : String(error) });
}

/** Runs `work` in a span child of `parent`; the span ends with it and is marked failed if it throws. */
export async function inSpan<T>(tracer: Tracer, name: string, options: SpanOptions, parent: Context, work: (span: Span, context: Context) => Promise<T>): Promise<T> {
  const span = tracer.startSpan(name, options, parent);
  try {
    return await work(span, trace.setSpan(parent, span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}
