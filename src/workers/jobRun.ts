import type { Logger } from 'pino';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { EngineDependencies } from '../execution/engineDependencies.ts';
import { failRun } from '../execution/failRun.ts';
import { continueExecution } from '../execution/continueExecution.ts';
import type { Lease, Leases } from '../leases/leases.ts';

/** What running one claimed job needs. */
export interface JobRunDependencies {
  engine: EngineDependencies;
  leases: Pick<Leases, 'renew' | 'finish' | 'holds' | 'park'>;
  logger: Logger;
  worker: string;
  leaseMs: number;
  /** A job claimed more often than this without finishing is failed (JOB_ABANDONED) by its next claimant. */
  maxClaims: number;
}

/**
 * Runs a job this worker holds: renews the lease while the run goes on, continues the run from its
 * own events, and marks the lease done when the run ended (or was ended by another writer, a
 * cancel). A run that stops on an error keeps its lease: it runs out and the job is taken over.
 */
export async function runClaimedJob(deps: JobRunDependencies, job: Lease) {
  const { engine, logger, worker } = deps;
  if (job.claims > deps.maxClaims) return abandon(deps, job);
  const renew = setInterval(() => {
    deps.leases.renew(job.id).catch((error: unknown) => logger.warn({ err: error, executionId: job.id }, 'could not renew job lease'));
  }, Math.max(50, Math.floor(deps.leaseMs / 3)));
  renew.unref();
  try {
    const outcome = await continueExecution(engine, {
      executionId: job.id,
      worker,
      claim: job.claims,
      principal: { kind: 'system', id: `job-runner:${worker}` },
      loadSteps: (versionId) => engine.flows.versionSteps(versionId),
      leaseHeld: () => deps.leases.holds(job.id),
    });
    if (outcome?.status === 'waiting') {
      // Waits for a person, holding nothing: claimed again once decided (its row stops waiting).
      logger.info({ executionId: job.id, claim: job.claims, waitingFor: outcome.waitingFor.stepId }, 'job waits for an approval');
      await deps.leases.park(job.id);
      return;
    }
    logger.info({ executionId: job.id, claim: job.claims, status: outcome?.status ?? 'already ended' }, 'job finished');
  } catch (error) {
    if (!(await endedElsewhere(engine, job.id))) {
      logger.error({ err: error, executionId: job.id }, 'job run stopped');
      return;
    }
    // Cancelled (or ended by another writer) while this runner worked on it: nothing to take over.
    logger.info({ executionId: job.id, claim: job.claims }, 'job ended by another writer (cancelled?); runner stopped');
  } finally {
    clearInterval(renew);
  }
  await deps.leases.finish(job.id);
}

async function endedElsewhere(engine: EngineDependencies, executionId: string): Promise<boolean> {
  try {
    const { state } = await loadStream(engine.eventStore, executionStream(executionId), execution);
    return state.status === 'completed' || state.status === 'failed';
  } catch {
    return false;
  }
}

/** Every earlier claim died or failed outside the run's steps: end it, so it is not claimed forever. */
async function abandon(deps: JobRunDependencies, job: Lease) {
  const message = `the job was claimed ${job.claims - 1} times without finishing (limit SEQFLOW_JOB_MAX_CLAIMS=${deps.maxClaims}); see the worker logs for why`;
  const failed = await failRun(deps.engine, job.id, { code: 'JOB_ABANDONED', message, principal: { kind: 'system', id: `job-runner:${deps.worker}` } });
  deps.logger.error({ executionId: job.id, claims: job.claims, failed }, 'job abandoned after too many claims');
  await deps.leases.finish(job.id);
}
