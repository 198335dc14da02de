import { type Kysely, sql } from 'kysely';
import { type ProcessReport, publishProcessReport } from '../health/processReports.ts';
import { createLeases } from '../leases/leases.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { periodicTask } from '../supervision/periodicTask.ts';
import type { Supervisor } from '../supervision/supervisor.ts';

/**
 * This process's runner lease: claimed when the runtime opens, kept every third of its term under
 * the supervisor, released when the runtime closes. The run events this process writes name it
 * (`metadata.runner`), so when the process dies (kill -9, OOM, a lost host) its lease expires and
 * another process's sweep ends the runs it left (interruptedRuns.ts).
 *
 * A lease that is no longer live means exactly what a missing one does (nobody runs those runs), so
 * the sweep deletes expired rows (`forgetExpiredRunners`) and the table holds only live processes.
 * Keeping the lease therefore claims it again when its row is gone: a process cut off from the
 * database for longer than its lease comes back with a lease, and the runs a sweep ended meanwhile
 * refuse its next append.
 */
export function createRunnerLease(options: { db: Kysely<ReadModels>; runnerId: string; leaseMs: number; supervisor: Supervisor; report?: () => Promise<ProcessReport> }) {
  const { runnerId, leaseMs } = options;
  const leases = createLeases(options.db, { kind: 'runner', owner: runnerId, leaseMs });
  let renewal: { stop(): Promise<void> } | undefined;
  // A live row is extended; a missing or expired one is claimed again. Then the process says how it is.
  const keep = async () => {
    if (!(await leases.claimById(runnerId))) await leases.renew(runnerId);
    if (options.report) await publishProcessReport(options.db, runnerId, await options.report());
  };
  return {
    id: runnerId,
    async hold() {
      await keep();
      renewal ??= options.supervisor.supervise('runner-lease', () => periodicTask(Math.floor(leaseMs / 3), keep));
    },
    /** Gives the lease up (the process's runs have ended or been recorded interrupted); a sweep deletes the row. */
    async close() {
      await renewal?.stop();
      renewal = undefined;
      await leases.release(runnerId);
    },
  };
}

/** The runner named in `column` holds no live lease (it expired, was given up, or never was): nobody runs what it ran. */
export const withoutLiveRunner = (column: 'runs.runner' | 'backtests.runner') =>
  sql<boolean>`NOT EXISTS (SELECT 1 FROM runner_leases l WHERE l.runner_id = ${sql.ref(column)} AND l.expires_at > now() AND l.done_at IS NULL)`;

/** Deletes runner leases no longer live: an expired lease and a missing one mean the same, and the table stays as small as the set of live processes. */
export async function forgetExpiredRunners(db: Kysely<ReadModels>): Promise<void> {
  await db.deleteFrom('runner_leases').where((eb) => eb.or([eb('expires_at', '<=', sql<Date>`now()`), eb('done_at', 'is not', null)])).execute();
}

export type RunnerLease = ReturnType<typeof createRunnerLease>;
