import { ProxyTracerProvider, type Tracer } from '@opentelemetry/api';
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
 *
 * Without an endpoint the tracer is the API's no-op one (spans are inert objects, nothing is
 * recorded) and the SDK and exporter are not even loaded: every CLI command starts a runtime.
 */
export async function createTracing(settings: Config['tracing'], serviceVersion: string): Promise<Tracing> {
  if (!settings.tracesUrl) {
    // An unset ProxyTracerProvider delegates to the no-op provider, without reading the global one.
    return { tracer: new ProxyTracerProvider().getTracer('seqflow', serviceVersion), enabled: false, flush: async () => undefined, close: async () => undefined };
  }
  const [{ BatchSpanProcessor, ParentBasedSampler, AlwaysOnSampler, TracerProvider }, { OTLPTraceExporter }, { resourceFromAttributes }, { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION }] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: serviceVersion }),
    // A caller's `traceparent` that says "not sampled" is honoured; everything else is recorded.
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    // The batch queue is bounded (2048 spans by default): a collector that is down drops spans, never memory.
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: settings.tracesUrl }) })],
  });
  return {
    tracer: provider.getTracer('seqflow', serviceVersion),
    enabled: true,
    flush: () => provider.forceFlush(),
    close: () => provider.shutdown(),
  };
}
