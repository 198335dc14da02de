import type { Runtime } from '../runtime/runtime.ts';
import { createJobRunner } from './jobRunner.ts';

/**
 * What the `worker` role runs: the projections and the job runner (and, next, the webhook
 * dispatcher). Any number of worker processes may run against one database.
 */
export async function startWorkers(runtime: Runtime): Promise<{ stop(): Promise<void> }> {
  await runtime.projections.start();
  const jobs = createJobRunner({
    db: runtime.db,
    engine: runtime.execution,
    logger: runtime.logger,
    leaseMs: runtime.config.jobs.leaseMs,
    concurrency: runtime.config.jobs.concurrency,
    workerId: runtime.config.jobs.workerId,
  });
  jobs.start();
  return {
    async stop() {
      await jobs.stop();
      await runtime.projections.stop();
    },
  };
}
