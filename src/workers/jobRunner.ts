import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { EngineDependencies } from '../execution/engineDependencies.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

import type { SupervisedTask } from '../supervision/supervisor.ts';
import { createWakeableSleep } from '../supervision/wakeableSleep.ts';
import { createLeases } from '../leases/leases.ts';
import { runClaimedJob } from './jobRun.ts';
import { createWorkSlots } from './workSlots.ts';
import { createBoundedQueue } from './boundedQueue.ts';
import { createFailureBackoff } from '../supervision/failureBackoff.ts';
import { RETRY_POLICIES } from '../domain/retry/retryPolicy.ts';

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
  workerId: string;
  pollMs?: number;
  /** A job claimed more often than this without finishing is failed (JOB_ABANDONED) by its next claimant. */
  maxClaims?: number;
  /** How long `stop` waits for the runs in hand before releasing their leases. */
  graceMs?: number;
  /** Jobs accepted here that wait for a free slot, at most (default 64 per slot). */
  waitingBound?: number;
  /** The jitter's randomness for the claim loop's backoff (tests fix it). */
  random?: () => number;
  /** Subscribes to jobs accepted in this process (offered at once); returns the unsubscribe. */
  accepted?: (listener: (executionId: string) => void) => () => void;
}

/** Jobs a runner claims from the read model in one statement at most (as its free slots allow). */
const CLAIMS_AT_ONCE = 16;

export function createJobRunner(options: JobRunnerOptions) {
  const { db, logger, leaseMs } = options;
  const worker = options.workerId;
  const graceMs = options.graceMs ?? 30_000;
  let running = false;
  // Latched: a wake that comes while a claim is in flight (a slot freed, or stop) ends the next
  // sleep at once; dropped, it would leave a freed slot idle, and stop waiting, for a whole poll.
  const pause = createWakeableSleep({ latch: true });
  // After a look that found nothing with slots free, the next look waits a whole poll (only stop
  // ends it early): a freed slot does not make work appear in the read model. Jobs accepted here
  // are offered at once; those accepted elsewhere are found by the next poll.
  const idle = createWakeableSleep({ latch: true });
  // Jobs accepted here while every slot was busy, oldest first: a freed slot takes the next by its
  // id, without waiting for the read model (its projection) or for the claim loop's turn. Bounded:
  // past it, an accepted job waits for the claim loop like a job accepted in another process.
  const waiting = createBoundedQueue<string>(options.waitingBound ?? options.concurrency * 64);
  const freed = () => {
    pause.wake();
    takeWaiting();
  };
  // A run's own bookkeeping failed (abandoning it, its lease's last update): the lease runs out and the job is taken over or found ended.
  const slots = createWorkSlots(options.concurrency, freed, (error) => logger.error({ err: error }, 'job bookkeeping failed; the job is taken over when its lease runs out'));
  let loop: Promise<void> | undefined;
  let stopListening: (() => void) | undefined;
  const leases = createLeases(db, { kind: 'job', owner: worker, leaseMs });
  const runDeps = { engine: options.engine, leases, logger, worker, leaseMs, maxClaims: options.maxClaims ?? 5 };

  /** Claims up to `limit` of the oldest open jobs nobody holds, in one statement. */
  const claim = (limit: number) =>
    leases.claim(sql`WITH candidate AS (
        SELECT j.execution_id FROM jobs j
          LEFT JOIN job_leases l ON l.execution_id = j.execution_id
         WHERE j.status IN ('started', 'running')
           AND j.waiting_for IS NULL
           AND (l.execution_id IS NULL OR (l.done_at IS NULL AND l.expires_at < now()))
         ORDER BY j.created_at
         LIMIT ${limit}
         FOR UPDATE OF j SKIP LOCKED
      )`);

  /** A job accepted in this process: run it now if there is room, else when a slot frees (or the claim loop finds it in the read model). */
  async function offer(executionId: string) {
    if (!running) return;
    if (slots.free() <= 0) {
      waiting.push(executionId);
      return;
    }
    await claimAndRun(executionId);
  }

  function takeWaiting() {
    for (let next = running && slots.free() > 0 ? waiting.shift() : undefined; next !== undefined; next = running && slots.free() > 0 ? waiting.shift() : undefined) {
      void claimAndRun(next);
    }
  }

  async function claimAndRun(executionId: string) {
    try {
      // Taken at once instead of after the projection; a job that has ended is found so by the run, which then appends nothing.
      const job = await slots.claiming(() => leases.claimById(executionId));
      if (job && running) return slots.run(() => runClaimedJob(runDeps, job));
    } catch (error) {
      logger.warn({ err: error, executionId }, 'could not take an accepted job at once; the claim loop will');
    }
    // Taken by someone else (or not at all): the slot it held is free again.
    freed();
  }

  async function mainLoop() {
    const pollMs = options.pollMs ?? 250;
    const claimFailures = createFailureBackoff(RETRY_POLICIES.claimLoop, options.random);
    let lookedAt = 0;
    while (running) {
      // While jobs accepted here wait for slots, they take the slots as these free, and the read
      // model is looked at once a poll, so that jobs accepted elsewhere are not left behind.
      const sinceLook = performance.now() - lookedAt;
      if (waiting.size() > 0 && sinceLook < pollMs) {
        await pause.sleep(pollMs - sinceLook);
        continue;
      }
      lookedAt = performance.now();
      // As many jobs as there are free slots, in one statement (SKIP LOCKED: runners in other
      // processes take others): one claim at a time, a round trip each, bounds how fast slots fill.
      const wanted = Math.min(slots.free(), CLAIMS_AT_ONCE);
      let jobs: Awaited<ReturnType<typeof claim>>;
      try {
        jobs = wanted <= 0 ? [] : await slots.claiming(() => claim(wanted), wanted);
        claimFailures.succeeded();
      } catch (error) {
        // The database is likely away: the next claim waits by the retry policy (only stop ends the wait).
        const retryInMs = claimFailures.failed(performance.now());
        logger.warn({ err: error, failures: claimFailures.failures(), retryInMs }, 'job claim failed');
        await idle.sleep(retryInMs);
        continue;
      }
      for (const job of jobs) slots.run(() => runClaimedJob(runDeps, job));
      // The slots the claim held and did not fill are free again: a job accepted here meanwhile (queued,
      // as every slot was held) takes one now rather than after a whole poll.
      takeWaiting();
      if (jobs.length === 0 && running) await (wanted > 0 ? idle : pause).sleep(pollMs);
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
      // Left to the claim loop of whichever worker runs next: each is a job row in the read model.
      waiting.clear();
      pause.wake();
      idle.wake();
      await loop;
      if (await slots.drained(graceMs)) return;
      const released = await leases.releaseAll();
      logger.warn({ released }, 'jobs still running at shutdown: their leases are released for another worker');
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
