import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { executionStream } from '../domain/execution/executionEvents.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { lastEventsOf } from '../eventstore/streams.ts';
import { failRun } from '../execution/failRun.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { periodicTask } from '../supervision/periodicTask.ts';

const PAGE = 100;

/**
 * Ends this process's own runs that nothing works on any more: a sync, step or test run it took up
 * (its runner lease is live, so the interrupted-run sweep leaves it alone) that its run lifecycle
 * no longer tracks and whose last event is older than `silentMs`. That is a run whose end, and the
 * RUN_RECORD_FAILED in its place, could not be written (a full disk): once the database takes writes
 * again, it is recorded failed (RUN_INTERRUPTED) here rather than staying `running` until a restart.
 * The stream decides, as for the other sweep: a run that ended or moved meanwhile is left alone.
 */
export function createSilentOwnRunSweep(deps: { db: Kysely<ReadModels>; engine: { eventStore: EventStore; now: () => Date }; runner: string; tracked: () => string[]; silentMs: number; logger: Pick<Logger, 'warn'> }) {
  const principal = { kind: 'system' as const, id: `run-sweep:${deps.runner}` };

  async function sweepOnce(): Promise<number> {
    const now = deps.engine.now();
    const before = new Date(now.getTime() - deps.silentMs);
    const tracked = new Set(deps.tracked());
    const rows = await deps.db.selectFrom('runs').select(['execution_id']).where('status', '=', 'running').where('mode', '<>', 'async').where('runner', '=', deps.runner).where('created_at', '<', before).limit(PAGE).execute();
    const untracked = rows.map((row) => row.execution_id).filter((executionId) => !tracked.has(executionId));
    const lastEvents = await lastEventsOf(deps.engine.eventStore, untracked.map(executionStream));
    let ended = 0;
    for (const executionId of untracked) {
      const last = lastEvents.get(executionStream(executionId));
      if (last && last.recordedAt.getTime() > before.getTime()) continue;
      const message = `nothing recorded this run for ${Math.round(deps.silentMs / 1000)} s and its process no longer runs it (its end could not be written)`;
      if (await failRun(deps.engine, executionId, { code: 'RUN_INTERRUPTED', message, principal, ifRunner: deps.runner })) ended++;
    }
    if (ended > 0) deps.logger.warn({ ended }, 'recorded this process\'s silent runs as interrupted (RUN_INTERRUPTED)');
    return ended;
  }

  return { sweepOnce, start: (intervalMs: number) => periodicTask(intervalMs, async () => void (await sweepOnce())) };
}
