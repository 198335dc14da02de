import { Writable } from 'node:stream';
import type pg from 'pg';
import pino from 'pino';
import type { EngineDependencies } from '../../src/execution/engineDependencies.ts';
import { createLeases, type Lease } from '../../src/leases/leases.ts';
import { runClaimedJob } from '../../src/workers/jobRun.ts';
import type { InProcessPostgres } from './inProcessPostgres.ts';

/**
 * A job's lease, in the simulation's time: long next to a schedule's ticks, so a lease runs out only
 * when the schedule moves the clock past it (`expireLeases`), and the renewals that jobRun.ts makes
 * every third of it in real time never come round while a schedule runs.
 */
export const SIMULATED_JOB_LEASE_MS = 3_600_000;

/** What a worker's job runs logged as errors, by job: why a run stopped, for a broken invariant's words. */
export type JobErrors = Map<string, string[]>;

/**
 * A job runner's worker in the simulation: the real lease SQL (src/leases/leases.ts, kind `job`) on
 * the in-process PostgreSQL over `pool` (its process's own connection: it dies with the process),
 * and the real run of a claimed job (src/workers/jobRun.ts: its claim number, its lease checks, its
 * finish). `claimAndRun` is what the job runner does with a job: claims it by id, and runs it if the
 * claim was granted; it answers whether it was. `claim` and `run` are its two halves, for a schedule
 * that needs a claim made before it goes on without waiting for the run.
 */
export function simulatedJobWorker(postgres: InProcessPostgres, pool: pg.Pool, worker: string, engine: EngineDependencies, errors: JobErrors) {
  const leases = createLeases(postgres.kysely(pool), { kind: 'job', owner: worker, leaseMs: SIMULATED_JOB_LEASE_MS });
  const deps = { engine, leases, logger: errorsOf(errors), worker, leaseMs: SIMULATED_JOB_LEASE_MS, maxClaims: 5 };
  return {
    /** Claims the job by id: its lease, or undefined when another holds it or it is done. */
    claim: (executionId: string): Promise<Lease | undefined> => leases.claimById(executionId),
    run: (lease: Lease) => runClaimedJob(deps, lease),
    async claimAndRun(executionId: string): Promise<boolean> {
      const lease = await leases.claimById(executionId);
      if (!lease) return false;
      await runClaimedJob(deps, lease);
      return true;
    },
  };
}

/** A logger that keeps what was logged at `error`, by the job it names: `<message>: [<error's type>] <error's message>`. */
function errorsOf(errors: JobErrors) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as { executionId?: string; msg: string; err?: { type: string; message: string } };
      if (line.executionId) errors.set(line.executionId, [...(errors.get(line.executionId) ?? []), `${line.msg}${line.err ? `: [${line.err.type}] ${line.err.message}` : ''}`]);
      done();
    },
  });
  return pino({ level: 'error' }, sink);
}
