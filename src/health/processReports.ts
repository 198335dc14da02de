import { hostname } from 'node:os';
import { type Kysely, sql } from 'kysely';
import { packageVersion } from '../config/packageVersion.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { ProjectionStatus } from '../projections/projectionCheckpoints.ts';
import type { Supervisor, TaskStatus } from '../supervision/supervisor.ts';

/** What a process runs as: a `serve` role, or a CLI command (which runs runs too: `seqflow test run`). */
export type ProcessRole = 'all' | 'api' | 'worker' | 'cli';

/**
 * A process's report on itself, written beside its runner lease each time it renews it (a third of
 * the lease's term): the console's System view lists every live process from these rows, so it
 * shows the workers too, not only the process that serves the console. A process that dies stops
 * writing; its lease expires and the sweep deletes the row with it.
 */
export interface ProcessReport {
  role: ProcessRole;
  host: string;
  pid: number;
  version: string;
  startedAt: string;
  reportedAt: string;
  tasks: Pick<TaskStatus, 'name' | 'state' | 'restarts' | 'lastError'>[];
  /** The projections as this process sees them: the most any is behind the log's head, and those stalled. */
  projections: { maxBehind: number; stalled: string[] };
}

export interface LiveProcess {
  runnerId: string;
  leaseExpiresAt: string;
  /** null until its first renewal after the start (or for a process of an earlier release). */
  report: ProcessReport | null;
}

/** This process's report as of now: what never changes is taken once, its tasks and the projections' lag at each call. */
export function processReporter(role: ProcessRole, parts: { supervisor: Pick<Supervisor, 'status'>; projections: { status(): Promise<ProjectionStatus[]> } }): () => Promise<ProcessReport> {
  const fixed = { role, host: hostname(), pid: process.pid, version: packageVersion(), startedAt: new Date().toISOString() };
  return async () => {
    const statuses = await parts.projections.status();
    return {
      ...fixed,
      reportedAt: new Date().toISOString(),
      tasks: parts.supervisor.status().map(({ name, state, restarts, lastError }) => ({ name, state, restarts, lastError })),
      projections: { maxBehind: Math.max(0, ...statuses.map((p) => p.behind)), stalled: statuses.filter((p) => p.stalled !== null).map((p) => p.name) },
    };
  };
}

export async function publishProcessReport(db: Kysely<ReadModels>, runnerId: string, report: ProcessReport): Promise<void> {
  await db.updateTable('runner_leases').set({ report: JSON.stringify(report) }).where('runner_id', '=', runnerId).execute();
}

/** Every process whose runner lease is live, by runner id. */
export async function listLiveProcesses(db: Kysely<ReadModels>): Promise<LiveProcess[]> {
  const rows = await db
    .selectFrom('runner_leases')
    .select(['runner_id', 'expires_at', 'report'])
    .where('expires_at', '>', sql<Date>`now()`)
    .where('done_at', 'is', null)
    .orderBy('runner_id')
    .execute();
  return rows.map((row) => ({ runnerId: row.runner_id, leaseExpiresAt: new Date(row.expires_at).toISOString(), report: (row.report as ProcessReport | null) ?? null }));
}
