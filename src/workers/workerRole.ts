import type { Runtime } from '../runtime/runtime.ts';

/**
 * What the `worker` role runs: the projections (and, as they arrive, the job runner and webhook
 * dispatcher). Any number of worker processes may run against one database.
 */
export async function startWorkers(runtime: Runtime): Promise<{ stop(): Promise<void> }> {
  await runtime.projections.start();
  return { stop: () => runtime.projections.stop() };
}
