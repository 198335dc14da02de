import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { type CommandDependencies, handleCommand } from '../commands/commandHandler.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { periodicTask } from '../supervision/periodicTask.ts';

const PAGE = 100;

/**
 * Decides the approvals nobody decided in time, by their block's timeout policy. Due is the
 * database's clock (`due_at <= now()`, `due_at` from the request's record in the log), so every
 * worker agrees when, whatever its own clock says, and a restart loses nothing: the rows wait in the
 * read model. The read model only proposes; the run's stream decides (TimeOutApproval): sweeps in
 * several workers, and a member deciding at the same moment, append against one revision, and the
 * losers decide again on the winner's state and find nothing left to decide. One outcome, once.
 */
export function createApprovalTimeoutSweep(deps: { db: Kysely<ReadModels>; commands: CommandDependencies; logger: Logger; sweeper: string; intervalMs: number }) {
  const principal = { kind: 'system' as const, id: `approval-sweep:${deps.sweeper}` };

  /** One pass; answers how many approvals it decided. */
  async function sweepOnce(): Promise<number> {
    const due = await deps.db
      .selectFrom('approvals')
      .select(['execution_id', 'block_name', 'due_at', sql<Date>`now()`.as('now')])
      .where('status', '=', 'waiting')
      .where('due_at', '<=', sql<Date>`now()`)
      .orderBy('due_at')
      .limit(PAGE)
      .execute();
    let decided = 0;
    for (const row of due) {
      const stream = executionStream(row.execution_id);
      const loaded = await loadStream(deps.commands.eventStore, stream, execution);
      const startedAt = loaded.recorded[0] ? Date.parse(loaded.recorded[0].metadata.occurredAt) : row.now.getTime();
      const data = { stepId: row.block_name, at: row.now.toISOString(), durationMs: Math.max(0, row.now.getTime() - startedAt) };
      // Decided on the stream just read (its run's start gives the duration); a writer since makes the append retry on fresh state.
      const result = await handleCommand(deps.commands, stream, execution, { type: 'TimeOutApproval', data }, { principal, correlationId: row.execution_id }, loaded);
      if (result.events.length > 0) decided++;
    }
    if (decided > 0) deps.logger.info({ decided }, 'approvals decided by their timeout policy');
    return decided;
  }

  return {
    sweepOnce,
    /** Sweeps every `intervalMs`, under the supervisor. */
    start: () => periodicTask(deps.intervalMs, async () => void (await sweepOnce())),
  };
}
