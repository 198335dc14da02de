import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { eraseRunClosure } from '../execution/eraseRunClosure.ts';
import type { ReadModelsCurrent } from '../projections/readModelsCurrent.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';
import { periodicTask } from '../supervision/periodicTask.ts';

const PAGE = 100;

/**
 * Erases the personal data of runs that ended longer ago than their retention period (their
 * project's, else their organization's): each one a RunDataErased with trigger `retention` and the
 * system as principal, exactly as an erasure asked for. Every mode counts (test runs and backtest
 * replays are runs), and a run's webhook bodies, dead-lettered or not, are sealed under its key.
 * A run that has not ended is left until it ends.
 *
 * The runs read model only proposes; the run's stream decides. Sweeps in several worker processes
 * may propose the same run: one append wins, the others find it erased and change nothing.
 */
export function createRetentionSweep(deps: { db: Kysely<ReadModels>; commands: CommandDependencies; runDataKeys: RunDataKeys; readModelsCurrent: ReadModelsCurrent; logger: Pick<Logger, 'info' | 'warn'>; intervalMs: number }) {
  const principal = { principal: { kind: 'system' as const, id: 'retention' } };

  /**
   * The ended runs whose period is over at `now` (the database's clock when not given: the times
   * compared are the database's, and a worker whose own clock runs days ahead must not erase a run
   * early), oldest first, after `after` (a keyset: the read model marks erasures a moment later).
   */
  async function due(now: Date | undefined, after: { endedAt: string; executionId: string } | null) {
    const { rows } = await sql<{ execution_id: string; ended_at: string; run_days: number }>`
      SELECT r.execution_id, r.ended_at::text AS ended_at, COALESCE(p.run_days, o.run_days) AS run_days
      FROM runs r
      LEFT JOIN retention_periods p ON p.organization_id = r.organization_id AND p.project_id = r.project_id
      LEFT JOIN retention_periods o ON o.organization_id = r.organization_id AND o.project_id = ''
      WHERE r.data_erased_at IS NULL AND r.ended_at IS NOT NULL
        -- A run recorded before sealing has no key, and nothing to erase it with (eraseRunData refuses it).
        AND EXISTS (SELECT 1 FROM run_data_keys k WHERE k.execution_id = r.execution_id)
        AND COALESCE(p.run_days, o.run_days) IS NOT NULL
        AND r.ended_at < ${now === undefined ? sql`clock_timestamp()` : sql`${now.toISOString()}::timestamptz`} - make_interval(days => COALESCE(p.run_days, o.run_days))
        ${after ? sql`AND (r.ended_at, r.execution_id) > (${after.endedAt}::timestamptz, ${after.executionId})` : sql``}
      ORDER BY r.ended_at, r.execution_id
      LIMIT ${PAGE}`.execute(deps.db);
    return rows;
  }

  /** Erases every run due at `now` (the database's clock unless given: a test's time); answers how many it erased. */
  async function sweepOnce(now?: Date): Promise<number> {
    let erased = 0;
    let after: { endedAt: string; executionId: string } | null = null;
    for (;;) {
      const page = await due(now, after);
      for (const run of page) {
        try {
          // With what was derived from it (reruns, replays, test runs of cases made from it): their copies of its data go too.
          const result = await eraseRunClosure({ ...deps.commands, runDataKeys: deps.runDataKeys, db: deps.db, readModelsCurrent: deps.readModelsCurrent }, { executionId: run.execution_id, trigger: 'retention', reason: `its retention period (${run.run_days} days) ran out` }, principal);
          if (result.erasedNow) erased++;
        } catch (error) {
          // A run the log says has not ended (the read model was ahead) waits for the next pass.
          if (!(error instanceof ApiError)) throw error;
          deps.logger.warn({ executionId: run.execution_id, code: error.code }, 'retention: a run due for erasure could not be erased yet');
        }
      }
      if (page.length < PAGE) break;
      after = { endedAt: page.at(-1)!.ended_at, executionId: page.at(-1)!.execution_id };
    }
    if (erased > 0) deps.logger.info({ erased }, 'retention: erased the personal data of runs past their retention period');
    return erased;
  }

  return {
    sweepOnce,
    /** Sweeps every `intervalMs`, under the supervisor. */
    start: () => periodicTask(deps.intervalMs, async () => void (await sweepOnce())),
  };
}
