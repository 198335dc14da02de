import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Runtime } from '../../../runtime/runtime.ts';

const check = async (probe: () => Promise<unknown>) => {
  try {
    await probe();
    return { ok: true as const };
  } catch (error) {
    return { ok: false as const, error: (error as Error).message };
  }
};

/** Database and event-log reachability and how far each projection is behind the log. 503 when something is down. */
export function healthRoutes(runtime: Runtime) {
  return async (app: FastifyInstance) => {
    app.get('/health', async (_request, reply) => {
      const [database, eventLog] = await Promise.all([check(() => sql`SELECT 1`.execute(runtime.db)), check(() => runtime.eventStore.ping())]);
      const projections = database.ok && eventLog.ok ? await runtime.projections.status().catch(() => []) : [];
      const healthy = database.ok && eventLog.ok;
      return reply.status(healthy ? 200 : 503).send({
        status: healthy ? 'ok' : 'unavailable',
        database,
        eventLog: { ...eventLog, kind: runtime.eventStore.kind },
        projections: { maxBehind: Math.max(0, ...projections.map((p) => p.behind)), detail: projections },
      });
    });
  };
}
