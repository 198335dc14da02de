import type { Kysely } from 'kysely';
import { createLeases } from '../leases/leases.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { periodicTask } from '../supervision/periodicTask.ts';
import type { Supervisor } from '../supervision/supervisor.ts';

/**
 * This process's runner lease: claimed when the runtime opens, renewed every third of its term
 * under the supervisor, finished when the runtime closes. The run events this process writes name
 * it (`metadata.runner`), so when the process dies (kill -9, OOM, a lost host) its lease expires and
 * another process's sweep ends the runs it left (interruptedRuns.ts). A renewal that fails (the
 * database away) is retried by the supervisor; a lease that expired meanwhile is simply extended
 * again: the runs a sweep ended in between refuse this process's next append.
 */
export function createRunnerLease(options: { db: Kysely<ReadModels>; runnerId: string; leaseMs: number; supervisor: Supervisor }) {
  const { runnerId, leaseMs } = options;
  const leases = createLeases(options.db, { kind: 'runner', owner: runnerId, leaseMs });
  let renewal: { stop(): Promise<void> } | undefined;
  return {
    id: runnerId,
    async hold() {
      await leases.claimById(runnerId);
      renewal ??= options.supervisor.supervise('runner-lease', () => periodicTask(Math.floor(leaseMs / 3), () => leases.renew(runnerId)));
    },
    /** Gives the lease up for good (the process's runs have ended or been recorded interrupted). */
    async close() {
      await renewal?.stop();
      renewal = undefined;
      await leases.finish(runnerId);
    },
  };
}

export type RunnerLease = ReturnType<typeof createRunnerLease>;
