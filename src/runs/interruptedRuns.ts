import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { EventStore } from '../eventstore/eventStore.ts';
import { failRun } from '../execution/failRun.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { periodicTask } from '../supervision/periodicTask.ts';
import { finishInterruptedTestRun } from '../testing/interruptedTestRun.ts';
import { forgetExpiredRunners, withoutLiveRunner } from './runnerLease.ts';

const PAGE = 100;

/**
 * Ends the runs nobody is running any more: a sync, step or test run still `running` whose runner
 * (the process that took it up last, runnerLease.ts) no longer holds a live lease died with it, and
 * a child run still running whose parent has ended. Each
 * is recorded failed with RUN_INTERRUPTED, so its caller's poll, its /step followers (they receive
 * the failed event and their stream ends), the listings and the console all see it end; a test
 * run's test run is recorded finished (failed, naming the error) too.
 *
 * The runs read model only proposes; the run's own stream decides: a run that ended meanwhile, or
 * was resumed by another process, is left alone (failRun). Sweeps in several processes may propose
 * the same run: one append wins, the others find the run ended.
 */
export function createInterruptedRunSweep(deps: { db: Kysely<ReadModels>; engine: { eventStore: EventStore; now: () => Date }; logger: Logger; sweeper: string; intervalMs: number }) {
  const principal = { kind: 'system' as const, id: `run-sweep:${deps.sweeper}` };

  /** One pass; answers how many runs it ended. */
  async function sweepOnce(): Promise<number> {
    const orphans = await deps.db
      .selectFrom('runs')
      .select(['execution_id', 'runner', 'mode', 'test_run_id', 'created_at'])
      .where('status', '=', 'running')
      .where('mode', 'not in', ['async', 'subflow'])
      .where('runner', 'is not', null)
      .where(withoutLiveRunner('runs.runner'))
      .limit(PAGE)
      .execute();
    let ended = 0;
    for (const orphan of orphans) {
      const message = `The process running this run (${orphan.runner}) stopped before the run ended`;
      if (!(await failRun(deps.engine, orphan.execution_id, { code: 'RUN_INTERRUPTED', message, principal, ifRunner: orphan.runner! }))) continue;
      ended++;
      if (orphan.mode === 'test' && orphan.test_run_id !== null) {
        const latencyMs = Math.max(0, deps.engine.now().getTime() - new Date(orphan.created_at).getTime());
        await finishInterruptedTestRun(deps.engine, orphan.test_run_id, { executionId: orphan.execution_id, code: 'RUN_INTERRUPTED', message, latencyMs, principal });
      }
    }
    ended += await sweepOrphanedChildren();
    if (ended > 0) deps.logger.warn({ ended }, 'recorded runs whose process died as interrupted (RUN_INTERRUPTED)');
    // A dead lease and a missing one mean the same to the question above: the rows go, the table stays small.
    await forgetExpiredRunners(deps.db);
    return ended;
  }

  /**
   * A child run (a flow block's) is owned by its parent: whoever runs the parent runs it, and a job
   * taken over continues it. One still running once its parent has ended (a sync parent ended here
   * as interrupted, a job abandoned or cancelled) has nobody left to run it.
   */
  async function sweepOrphanedChildren(): Promise<number> {
    const orphans = await deps.db
      .selectFrom('runs as child')
      .innerJoin('runs as parent', 'parent.execution_id', 'child.parent_execution_id')
      .select(['child.execution_id', 'parent.execution_id as parent_id', 'parent.status as parent_status'])
      .where('child.mode', '=', 'subflow')
      .where('child.status', '=', 'running')
      .where('parent.status', 'in', ['completed', 'failed'])
      .limit(PAGE)
      .execute();
    let ended = 0;
    for (const orphan of orphans) {
      const message = `The run that started this child run (${orphan.parent_id}) ended (${orphan.parent_status}) before it`;
      if (await failRun(deps.engine, orphan.execution_id, { code: 'RUN_INTERRUPTED', message, principal })) ended++;
    }
    return ended;
  }

  return {
    sweepOnce,
    /** Sweeps every `intervalMs`, under the supervisor. */
    start: () => periodicTask(deps.intervalMs, async () => void (await sweepOnce())),
  };
}
