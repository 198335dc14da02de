import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, BatchSpanProcessor, ParentBasedSampler, AlwaysOnSampler, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Config } from '../config/config.ts';

/** The process's OpenTelemetry tracer and the exporter behind it. */
export interface Tracing {
  tracer: Tracer;
  /** Whether spans are recorded and exported (an OTLP endpoint is configured). */
  enabled: boolean;
  /** Exports every span that has ended (tests; the end of a shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A tracer provider of the process's own, handed to the parts that make spans, and never registered
 * as the global one (nor a global context manager or propagator): two runtimes in one process keep
 * their spans apart, and a library's auto-instrumentation cannot add spans nobody asked for. Context
 * travels explicitly (a parent passed to each span), and between processes in the events' metadata.
 * Without an endpoint the sampler records nothing, so spans cost an object each and are never exported.
 */
export function createTracing(settings: Config['tracing'], serviceVersion: string, exporter?: SpanExporter): Tracing {
  const target = exporter ?? (settings.tracesUrl ? new OTLPTraceExporter({ url: settings.tracesUrl }) : undefined);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: serviceVersion }),
    // A caller's `traceparent` that says "not sampled" is honoured; everything else is recorded.
    sampler: target ? new ParentBasedSampler({ root: new AlwaysOnSampler() }) : new AlwaysOffSampler(),
    // The batch queue is bounded (2048 spans by default): a collector that is down drops spans, never memory.
    spanProcessors: target ? [new BatchSpanProcessor({ exporter: target })] : [],
  });
  return {
    tracer: provider.getTracer('seqflow', serviceVersion),
    enabled: target !== undefined,
    flush: () => provider.forceFlush(),
    close: () => provider.shutdown(),
  };
}
