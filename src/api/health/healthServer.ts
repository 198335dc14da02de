import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime/runtime.ts';
import { healthRoutes } from '../rest/routes/healthRoutes.ts';

/**
 * `/api/v1/health` on a listener of its own (SEQFLOW_HEALTH_HOST/PORT), for a process that has no
 * public port: a `--role worker`. The same report as the API's (the database, the event log, the
 * projections, and this process's own supervised tasks), so an orchestrator's health check and an
 * operator see a worker as they see an API process.
 */
export async function buildHealthServer(runtime: Runtime): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: runtime.logger as FastifyBaseLogger });
  // The route's schema documents the API's answer (the OpenAPI document); here, as there, answers are serialized as they are.
  app.setValidatorCompiler(() => (value) => ({ value }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(healthRoutes(runtime), { prefix: '/api/v1' });
  return app;
}
