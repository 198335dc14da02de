import { hostname } from 'node:os';
import { type Kysely, type RawBuilder, sql } from 'kysely';
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
  let wake: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  /** Offers being claimed: they count against the concurrency until they run or are lost. */
  let offering = 0;
  let stopListening: (() => void) | undefined;

  /**
   * Inserts (or takes over, when expired and not done) the lease of the job `rows` names, after the
   * `WITH` clause `withClause`: the claim and its count, or undefined when someone else holds it.
   */
  async function takeLease(withClause: RawBuilder<unknown>, rows: RawBuilder<unknown>): Promise<{ executionId: string; claims: number } | undefined> {
    const { rows: taken } = await sql<{ execution_id: string; claims: number }>`
      ${withClause}
      INSERT INTO job_leases (execution_id, owner, expires_at, claims) ${rows}
      ON CONFLICT (execution_id) DO UPDATE
        SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, claims = job_leases.claims + 1
        WHERE job_leases.expires_at < now() AND job_leases.done_at IS NULL
      RETURNING execution_id, claims`.execute(db);
    const row = taken[0];
    return row ? { executionId: row.execution_id, claims: Number(row.claims) } : undefined;
  }

  /** Claims the oldest open job nobody holds; undefined when there is none. */
  const claim = () =>
    takeLease(
      sql`WITH candidate AS (
        SELECT j.execution_id FROM jobs j
          LEFT JOIN job_leases l ON l.execution_id = j.execution_id
         WHERE j.status IN ('started', 'running')
           AND (l.execution_id IS NULL OR (l.done_at IS NULL AND l.expires_at < now()))
         ORDER BY j.created_at
         LIMIT 1
         FOR UPDATE OF j SKIP LOCKED
      )`,
      sql`SELECT execution_id, ${worker}, now() + ${leaseMs} * interval '1 millisecond', 1 FROM candidate`,
    );

  /**
   * Claims one job by its id, without its read-model row: a job accepted in this process is taken at
   * once instead of after the projection. The lease decides as in `claim` (a held or finished lease
   * wins), and a job that has ended is found so by the run, which then appends nothing.
   */
  const claimById = (executionId: string) => takeLease(sql``, sql`VALUES (${executionId}, ${worker}, now() + ${leaseMs} * interval '1 millisecond', 1)`);

  function begin(job: { executionId: string; claims: number }) {
    const task = run(job).finally(() => {
      active.delete(task);
      wake?.();
    });
    active.add(task);
  }

  /** A job accepted in this process: run it now if there is room; otherwise the claim loop finds it in the read model. */
  async function offer(executionId: string) {
    if (!running || active.size + offering >= concurrency) return;
    offering++;
    try {
      const job = await claimById(executionId);
      if (job && running) begin(job);
    } catch (error) {
      logger.warn({ err: error, executionId }, 'could not take an accepted job at once; the claim loop will');
    } finally {
      offering--;
    }
  }

  async function run(job: { executionId: string; claims: number }) {
    if (job.claims > maxClaims) return abandon(job);
    const renew = setInterval(() => {
      sql`UPDATE job_leases SET expires_at = now() + ${leaseMs} * interval '1 millisecond' WHERE execution_id = ${job.executionId} AND owner = ${worker}`
        .execute(db)
        .catch((error: unknown) => logger.warn({ err: error, executionId: job.executionId }, 'could not renew job lease'));
    }, Math.max(50, Math.floor(leaseMs / 3)));
    renew.unref();
    try {
      const outcome = await continueExecution(engine, {
        executionId: job.executionId,
        worker,
        claim: job.claims,
        principal: { kind: 'system', id: `job-runner:${worker}` },
        loadSteps: (versionId) => engine.flows.versionSteps(versionId),
      });
      logger.info({ executionId: job.executionId, claim: job.claims, status: outcome?.status ?? 'already ended' }, 'job finished');
    } catch (error) {
      if (await endedElsewhere(job.executionId)) {
        // Cancelled (or ended by another writer) while this runner worked on it: nothing to take over.
        logger.info({ executionId: job.executionId, claim: job.claims }, 'job ended by another writer (cancelled?); runner stopped');
      } else {
        // The lease stays: it runs out and the job is taken over (or found ended) by a runner.
        logger.error({ err: error, executionId: job.executionId }, 'job run stopped');
        return;
      }
    } finally {
      clearInterval(renew);
    }
    await sql`UPDATE job_leases SET done_at = now() WHERE execution_id = ${job.executionId} AND owner = ${worker}`.execute(db);
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
  async function abandon(job: { executionId: string; claims: number }) {
    const message = `the job was claimed ${job.claims - 1} times without finishing (limit SEQFLOW_JOB_MAX_CLAIMS=${maxClaims}); see the worker logs for why`;
    const failed = await failRun(engine, job.executionId, { code: 'JOB_ABANDONED', message, principal: { kind: 'system', id: `job-runner:${worker}` } });
    logger.error({ executionId: job.executionId, claims: job.claims, failed }, 'job abandoned after too many claims');
    await sql`UPDATE job_leases SET done_at = now() WHERE execution_id = ${job.executionId} AND owner = ${worker}`.execute(db);
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
      if (!claimed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, pollMs);
          function done() {
            clearTimeout(timer);
            wake = undefined;
            resolve();
          }
          wake = done;
        });
      }
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
      wake?.();
      await loop;
      if (await withinGrace(Promise.allSettled([...active]), graceMs)) return;
      const { numAffectedRows } = await sql`UPDATE job_leases SET expires_at = now() WHERE owner = ${worker} AND done_at IS NULL AND expires_at > now()`.execute(db);
      logger.warn({ released: Number(numAffectedRows ?? 0) }, 'jobs still running at shutdown: their leases are released for another worker');
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
