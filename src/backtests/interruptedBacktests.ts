import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { periodicTask } from '../supervision/periodicTask.ts';
import { withoutLiveRunner } from '../runs/runnerLease.ts';
import { type CommandDependencies, handleCommand } from '../commands/commandHandler.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { backtest } from '../domain/backtests/backtest.ts';
import { backtestStream } from '../domain/backtests/backtestEvents.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

const PAGE = 100;

/**
 * Finishes the backtests whose process died: still `running`, their runner's lease gone. Each is
 * recorded finished `interrupted` (the comparisons recorded stay; the rest count as not run), so
 * no backtest stays running forever. Its replays that were going are ended by the run sweep. The
 * backtest's own stream decides: one that finished meanwhile is left alone.
 */
export function createInterruptedBacktestSweep(deps: { db: Kysely<ReadModels>; commands: CommandDependencies; logger: Logger; sweeper: string; intervalMs: number }) {
  const principal = { kind: 'system' as const, id: `backtest-sweep:${deps.sweeper}` };
  const sweepOnce = async () => {
    const finished = await finishInterruptedBacktests({ db: deps.db, commands: deps.commands, principal });
    if (finished > 0) deps.logger.warn({ finished }, 'recorded backtests whose process died as interrupted');
    return finished;
  };
  return {
    sweepOnce,
    /** Sweeps every `intervalMs`, under the supervisor. */
    start: () => periodicTask(deps.intervalMs, async () => void (await sweepOnce())),
  };
}

/** One pass: answers how many backtests it finished. */
export async function finishInterruptedBacktests(deps: { db: Kysely<ReadModels>; commands: CommandDependencies; principal: Principal }): Promise<number> {
  const orphans = await deps.db
    .selectFrom('backtests')
    .select(['id'])
    .where('status', '=', 'running')
    .where('runner', 'is not', null)
    .where(withoutLiveRunner('backtests.runner'))
    .limit(PAGE)
    .execute();
  let finished = 0;
  for (const { id } of orphans) {
    try {
      const result = await handleCommand(deps.commands, backtestStream(id), backtest, { type: 'Finish', status: 'interrupted' }, { principal: deps.principal, correlationId: id, retryOnConflict: false });
      if (result.events.length > 0) finished++;
    } catch {
      // Finished meanwhile (by its own process, or another sweep): nothing to do.
    }
  }
  return finished;
}
