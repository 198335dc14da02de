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

/** Jobs accepted that no runner holds a live lease on (the `seqflow_job_backlog` gauge). */
export async function countJobBacklog(db: Kysely<ReadModels>): Promise<number> {
  const row = await db
    .selectFrom('jobs as j')
    .leftJoin('job_leases as l', 'l.execution_id', 'j.execution_id')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('j.status', 'in', ['started', 'running'])
    .where((eb) => eb.or([eb('l.execution_id', 'is', null), eb.and([eb('l.done_at', 'is', null), eb('l.expires_at', '<', sql<Date>`now()`)])]))
    .executeTakeFirstOrThrow();
  return row.count;
}
