import { hostname } from 'node:os';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { loadStream } from '../eventstore/streams.ts';
import { failRun } from '../execution/failRun.ts';
import type { EngineDependencies } from '../execution/engineDependencies.ts';
import { continueExecution } from '../execution/flowEngine.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

import type { SupervisedTask } from '../supervision/supervisor.ts';
import { withinGrace } from '../supervision/withinGrace.ts';
import { createWakeableSleep } from '../supervision/wakeableSleep.ts';
import { type Lease, createLeases } from '../leases/leases.ts';

/**
 * Runs accepted /jobs runs. Any number of runners (in any number of processes) may run: a job is
 * claimed by exactly one (`FOR UPDATE SKIP LOCKED` on the job row, and a lease row that only an
 * expired lease lets anyone else take). The holder renews its lease while the run goes on; if it
 * dies, the lease runs out and another runner takes the job over, continuing after the blocks the
 * run's events record as completed. A runner that lost its lease but still runs is stopped by the
 * execution stream itself: its next append meets the new claim's revision and is refused.
 */
export interface JobRunnerOptions {
  db: Kysely<ReadModels>;
  engine: EngineDependencies;
  logger: Logger;
  leaseMs: number;
  concurrency: number;
  workerId?: string;
  pollMs?: number;
  /** A job claimed more often than this without finishing is failed (JOB_ABANDONED) by its next claimant. */
  maxClaims?: number;
  /** How long `stop` waits for the runs in hand before releasing their leases. */
  graceMs?: number;
  /** Subscribes to jobs accepted in this process (offered at once); returns the unsubscribe. */
  accepted?: (listener: (executionId: string) => void) => () => void;
}

export function createJobRunner(options: JobRunnerOptions) {
  const { db, engine, logger, leaseMs, concurrency } = options;
  const worker = options.workerId ?? `${hostname()}-${process.pid}`;
  const pollMs = options.pollMs ?? 250;
  const maxClaims = options.maxClaims ?? 5;
  const graceMs = options.graceMs ?? 30_000;
  const active = new Set<Promise<void>>();
  let running = false;
  const pause = createWakeableSleep();
  let loop: Promise<void> | undefined;
  /** Offers being claimed: they count against the concurrency until they run or are lost. */
  let offering = 0;
  let stopListening: (() => void) | undefined;
  const leases = createLeases(db, { kind: 'job', owner: worker, leaseMs });

  /** Claims the oldest open job nobody holds; undefined when there is none. */
  const claim = async () =>
    (
      await leases.claim(sql`WITH candidate AS (
        SELECT j.execution_id FROM jobs j
          LEFT JOIN job_leases l ON l.execution_id = j.execution_id
         WHERE j.status IN ('started', 'running')
           AND (l.execution_id IS NULL OR (l.done_at IS NULL AND l.expires_at < now()))
         ORDER BY j.created_at
         LIMIT 1
         FOR UPDATE OF j SKIP LOCKED
      )`)
    )[0];

  function begin(job: Lease) {
    const task = run(job).finally(() => {
      active.delete(task);
      pause.wake();
    });
    active.add(task);
  }

  /** A job accepted in this process: run it now if there is room; otherwise the claim loop finds it in the read model. */
  async function offer(executionId: string) {
    if (!running || active.size + offering >= concurrency) return;
    offering++;
    try {
      // A job accepted here is taken at once instead of after the projection; a job that has ended is found so by the run, which then appends nothing.
      const job = await leases.claimById(executionId);
      if (job && running) begin(job);
    } catch (error) {
      logger.warn({ err: error, executionId }, 'could not take an accepted job at once; the claim loop will');
    } finally {
      offering--;
    }
  }

  async function run(job: Lease) {
    if (job.claims > maxClaims) return abandon(job);
    const renew = setInterval(() => {
      leases
        .renew(job.id)
        .catch((error: unknown) => logger.warn({ err: error, executionId: job.id }, 'could not renew job lease'));
    }, Math.max(50, Math.floor(leaseMs / 3)));
    renew.unref();
    try {
      const outcome = await continueExecution(engine, {
        executionId: job.id,
        worker,
        claim: job.claims,
        principal: { kind: 'system', id: `job-runner:${worker}` },
        loadSteps: (versionId) => engine.flows.versionSteps(versionId),
      });
      logger.info({ executionId: job.id, claim: job.claims, status: outcome?.status ?? 'already ended' }, 'job finished');
    } catch (error) {
      if (await endedElsewhere(job.id)) {
        // Cancelled (or ended by another writer) while this runner worked on it: nothing to take over.
        logger.info({ executionId: job.id, claim: job.claims }, 'job ended by another writer (cancelled?); runner stopped');
      } else {
        // The lease stays: it runs out and the job is taken over (or found ended) by a runner.
        logger.error({ err: error, executionId: job.id }, 'job run stopped');
        return;
      }
    } finally {
      clearInterval(renew);
    }
    await leases.finish(job.id);
  }

  async function endedElsewhere(executionId: string): Promise<boolean> {
    try {
      const { state } = await loadStream(engine.eventStore, executionStream(executionId), execution);
      return state.status === 'completed' || state.status === 'failed';
    } catch {
      return false;
    }
  }

  /** Every earlier claim died or failed outside the run's steps: end it, so it is not claimed forever. */
  async function abandon(job: Lease) {
    const message = `the job was claimed ${job.claims - 1} times without finishing (limit SEQFLOW_JOB_MAX_CLAIMS=${maxClaims}); see the worker logs for why`;
    const failed = await failRun(engine, job.id, { code: 'JOB_ABANDONED', message, principal: { kind: 'system', id: `job-runner:${worker}` } });
    logger.error({ executionId: job.id, claims: job.claims, failed }, 'job abandoned after too many claims');
    await leases.finish(job.id);
  }

  async function mainLoop() {
    while (running) {
      let claimed = false;
      if (active.size + offering < concurrency) {
        try {
          const job = await claim();
          if (job) {
            claimed = true;
            begin(job);
          }
        } catch (error) {
          logger.warn({ err: error }, 'job claim failed; retrying');
        }
      }
      if (!claimed) await pause.sleep(pollMs);
    }
  }

  return {
    worker,
    /** Claims and runs jobs until stopped: a task for the supervisor. */
    start(): SupervisedTask {
      running = true;
      stopListening = options.accepted?.((executionId) => void offer(executionId));
      loop = mainLoop();
      return { done: loop, stop: () => this.stop() };
    },
    /** Takes a job accepted in this process now, if there is room. */
    offer,
    /**
     * Stops claiming and waits for the runs in hand to finish, at most `graceMs`; then gives their
     * leases up, so another worker takes them over at once instead of after the lease runs out.
     */
    async stop() {
      running = false;
      stopListening?.();
      pause.wake();
      await loop;
      if (await withinGrace(Promise.allSettled([...active]), graceMs)) return;
      const released = await leases.releaseAll();
      logger.warn({ released }, 'jobs still running at shutdown: their leases are released for another worker');
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
