import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/**
 * What waits and who holds what, for an operator's System view: jobs not finished, deliveries by
 * status (dead letters included), live job and delivery leases with their owners, and where the
 * reactors stand in the log.
 */
export async function backlogStatus(db: Kysely<ReadModels>, now: Date) {
  const [jobs, deliveries, jobLeases, deliveryLeases, reactors] = await Promise.all([
    db.selectFrom('jobs').select(['status', sql<number>`count(*)::int`.as('count')]).where('status', 'in', ['started', 'running']).groupBy('status').execute(),
    db.selectFrom('webhook_deliveries').select(['status', sql<number>`count(*)::int`.as('count')]).groupBy('status').execute(),
    db.selectFrom('job_leases').select(['owner', sql<number>`count(*)::int`.as('count')]).where('done_at', 'is', null).where('expires_at', '>', sql<Date>`${now.toISOString()}::timestamptz`).groupBy('owner').execute(),
    db.selectFrom('delivery_leases').select(['owner', sql<number>`count(*)::int`.as('count')]).where('expires_at', '>', sql<Date>`${now.toISOString()}::timestamptz`).groupBy('owner').execute(),
    db.selectFrom('reactor_checkpoints').select(['name', 'position']).orderBy('name').execute(),
  ]);
  const counts = (rows: { status: string; count: number }[]) => Object.fromEntries(rows.map((r) => [r.status, r.count]));
  return {
    jobs: counts(jobs),
    deliveries: counts(deliveries),
    leases: { jobs: jobLeases, deliveries: deliveryLeases },
    reactors: reactors.map((r) => ({ name: r.name, position: Number(r.position) })),
  };
}
