import { sql } from 'kysely';
import type { Projection } from '../projection.ts';
import { joinJudge } from '../../domain/backtests/judgeWords.ts';

/**
 * Backtests and their pairs: a row per backtest with its counts so far (a console watching it fill
 * in reads them), a row per chosen run from the start, filled in when its comparison is recorded.
 * A comparison counts once: the update only takes a pair not compared yet. An erased run's pairs
 * keep their outcome, not the excerpts of its result.
 */
export const backtestsProjection: Projection = {
  name: 'backtests',
  handles: ['BacktestStarted', 'BacktestRunCompared', 'BacktestRunSkipped', 'BacktestFinished', 'RunDataErased'],
  opens: ['BacktestRunCompared'],
  tables: ['backtests', 'backtest_pairs'],
  async apply(trx, handed, { occurredAt, open }) {
    // The comparison's changes are sealed: opened, as this projection keeps them.
    const event = handed.type === 'BacktestRunCompared' ? await open() : handed;
    switch (event.type) {
      case 'BacktestStarted': {
        const d = event.data;
        await trx
          .insertInto('backtests')
          .values({
            id: d.backtestId,
            flow_id: d.flowId,
            organization_id: d.organizationId,
            project_id: d.projectId,
            target_kind: d.target.kind,
            target_version_id: d.target.kind === 'version' ? d.target.versionId : null,
            target_version_number: d.target.kind === 'version' ? d.target.number : null,
            selection: JSON.stringify(d.selection),
            only_completed: d.onlyCompleted,
            judge: d.judge === null ? null : JSON.stringify(d.judge),
            repeat_of: d.repeatOf,
            runner: d.runner,
            status: 'running',
            total: d.runs.length,
            started_at: occurredAt,
            finished_at: null,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        if (d.runs.length === 0) return;
        await trx
          .insertInto('backtest_pairs')
          .values(d.runs.map((r, position) => ({ backtest_id: d.backtestId, position, execution_id: r.executionId, backtest_execution_id: r.backtestExecutionId, outcome: null, changes: null, more: null, original: null, candidate: null, judge: null, compared_at: null })))
          .onConflict((oc) => oc.columns(['backtest_id', 'position']).doNothing())
          .execute();
        return;
      }
      case 'BacktestRunCompared': {
        const d = event.data;
        const updated = await trx
          .updateTable('backtest_pairs')
          .set({ outcome: d.outcome, changes: JSON.stringify(d.changes), more: d.more, original: JSON.stringify(d.original), candidate: JSON.stringify(d.candidate), judge: d.judge === null ? null : JSON.stringify(joinJudge(d.judge, d.judgeWords)), compared_at: occurredAt })
          .where('backtest_id', '=', d.backtestId)
          .where('execution_id', '=', d.executionId)
          .where('outcome', 'is', null)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return;
        // The column the outcome counts in: a literal, one of the three pair outcomes.
        const column = sql.ref(d.outcome);
        const accepted = d.outcome === 'different' && d.judge?.passed === true;
        await trx
          .updateTable('backtests')
          .set({ [d.outcome]: sql`${column} + 1`, ...(accepted ? { accepted: sql`accepted + 1` } : {}) })
          .where('id', '=', d.backtestId)
          .execute();
        return;
      }
      case 'BacktestRunSkipped': {
        const d = event.data;
        const updated = await trx
          .updateTable('backtest_pairs')
          .set({ outcome: 'erased', compared_at: occurredAt })
          .where('backtest_id', '=', d.backtestId)
          .where('execution_id', '=', d.executionId)
          .where('outcome', 'is', null)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return;
        await trx.updateTable('backtests').set({ erased: sql`erased + 1` }).where('id', '=', d.backtestId).execute();
        return;
      }
      case 'BacktestFinished': {
        // The counts were kept pair by pair (the judge's verdicts with them); the end sets the status.
        await trx.updateTable('backtests').set({ status: event.data.status, finished_at: occurredAt }).where('id', '=', event.data.backtestId).execute();
        return;
      }
      case 'RunDataErased': {
        // The changed paths and the judge's words quote the erased run's result; the outcome, the
        // verdict and the counts stay (as joinJudge reads a comparison whose words are erased).
        await trx
          .updateTable('backtest_pairs')
          .set({ changes: '[]', judge: sql`CASE WHEN judge IS NULL THEN NULL WHEN judge ? 'judge' THEN jsonb_set(jsonb_set(judge, '{reason}', '""'), '{judge,rationale}', '""') ELSE jsonb_set(judge, '{reason}', '""') END` })
          .where('execution_id', '=', event.data.executionId)
          .execute();
        return;
      }
    }
  },
};
