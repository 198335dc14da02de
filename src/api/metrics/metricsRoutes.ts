import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Metrics } from '../../observability/metrics.ts';

/** `GET /metrics`: the process's metrics in the Prometheus text format. */
export function metricsRoute(metrics: Metrics) {
  return async (app: FastifyInstance) => {
    app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
  };
}

/**
 * Every answer of `app` observed in `seqflow_http_request_duration_seconds`, labelled by the route's
 * template (never the raw URL: ids in paths would make a series per run) or `unmatched`.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics) {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequestDuration.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}

/** The metrics on a listener of their own (SEQFLOW_METRICS_HOST/PORT), never on the public port: they name every tenant's flows. */
export async function buildMetricsServer(metrics: Metrics, logger: FastifyBaseLogger): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: logger });
  await app.register(metricsRoute(metrics));
  return app;
}
