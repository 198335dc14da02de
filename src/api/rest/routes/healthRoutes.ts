import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { EventStore } from '../../../eventstore/eventStore.ts';
import type { ProjectionRunner } from '../../../projections/projectionRunner.ts';
import type { ReadModels } from '../../../projections/readModelSchema.ts';
import type { Supervisor } from '../../../supervision/supervisor.ts';
import type { HealthNotes } from '../../../health/healthNotes.ts';
import { STORAGE_FULL } from '../../../observability/storageWatch.ts';
import type { Watchdog } from '../../../watchdog/watchdog.ts';
import type { ReadRouting } from '../../../database/readRouting.ts';
import { documented } from '../openapi/routeDocs.ts';
import { healthSchema } from '../openapi/responseSchemas.ts';

/** How long after the database last refused a write for want of room /health reports it unusable. */
const STORAGE_FULL_HOLD_MS = 60_000;

/** Said in place of an error's text: /health answers anyone, and the text can name hosts, data or queries (the log and the console have it). */
const WITHHELD = 'withheld: see the service log, or the operator console';

const check = async (probe: () => Promise<unknown>, log: (error: unknown) => void) => {
  try {
    await probe();
    return { ok: true as const };
  } catch (error) {
    log(error);
    return { ok: false as const, error: 'unreachable' };
  }
};

/**
 * Database and event-log reachability (503 when either is down), how far each projection is behind
 * the log and whether one is stalled, the state of this process's supervised background tasks, and
 * the problems it knows of (counted by code: `healthNotes`).
 */
export function healthRoutes(deps: { db: Kysely<ReadModels>; eventStore: Pick<EventStore, 'ping' | 'kind'>; projections: Pick<ProjectionRunner, 'status'>; supervisor: Pick<Supervisor, 'status'>; healthNotes?: Pick<HealthNotes, 'summary' | 'lastSeen'>; watchdog?: Pick<Watchdog, 'last'>; reads?: Pick<ReadRouting, 'status'> }) {
  return async (app: FastifyInstance) => {
    const schema = documented({ operationId: 'getHealth', summary: 'Database and event-log reachability, projection lag, background tasks', tags: ['Service'], response: { 200: healthSchema, 503: healthSchema }, errors: [] }, []);
    app.get('/health', { schema }, async (request, reply) => {
      const log = (what: string) => (error: unknown) => request.log.warn({ err: error }, `health check: ${what} unreachable`);
      const [reachable, eventLog] = await Promise.all([check(() => sql`SELECT 1`.execute(deps.db), log('database')), check(() => deps.eventStore.ping(), log('event log'))]);
      // Reachable is not usable: a database with no room to write refuses every write (503
      // DATABASE_STORAGE_FULL), so /health says so while a refusal is recent. Past that, the next
      // write decides again (a balancer sends traffic back, as a breaker half-opens).
      const fullSince = deps.healthNotes?.lastSeen(STORAGE_FULL, 'event-log') ?? null;
      const database = reachable.ok && fullSince !== null && Date.now() - Date.parse(fullSince) < STORAGE_FULL_HOLD_MS ? { ok: false as const, error: 'storage_full' } : reachable;
      const status = database.ok && eventLog.ok ? await deps.projections.status().catch(() => []) : [];
      const projections = status.map((p) => (p.stalled ? { ...p, stalled: { ...p.stalled, error: WITHHELD } } : p));
      const healthy = database.ok && eventLog.ok;
      const tasks = deps.supervisor.status().map((task) => (task.lastError === null ? task : { ...task, lastError: WITHHELD }));
      const problems = deps.healthNotes?.summary() ?? [];
      const report = deps.watchdog?.last();
      const watchdog = report ? { checkedAt: report.checkedAt, counts: report.counts } : null;
      const found = report ? report.findings.length > 0 : false;
      const reads = deps.reads?.status();
      // Serving, but something needs attention: a task restarting, a projection stalled, a known problem, a watchdog finding.
      const degraded = tasks.some((task) => task.state === 'restarting') || projections.some((p) => p.stalled) || problems.length > 0 || found;
      return reply.status(healthy ? 200 : 503).send({
        status: !healthy ? 'unavailable' : degraded ? 'degraded' : 'ok',
        database,
        eventLog: { ...eventLog, kind: deps.eventStore.kind },
        projections: { maxBehind: Math.max(0, ...projections.map((p) => p.behind)), detail: projections },
        tasks,
        problems,
        watchdog,
        ...(reads ? { reads: { ...reads, replicas: reads.replicas.map((r) => (r.lastError === null ? r : { ...r, lastError: WITHHELD })) } } : {}),
      });
    });
  };
}
