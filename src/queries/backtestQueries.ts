import { type Kysely, type Selectable, sql } from 'kysely';
import type { BacktestJudge, BacktestSelection, PairSide, ResultChange } from '../domain/backtests/backtestEvents.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { BacktestGateStatus } from '../domain/flows/backtestGate.ts';
import type { RecordedAssertionResult } from '../domain/testing/testRunEvents.ts';
import type { BacktestsTable, ReadModels } from '../projections/readModelSchema.ts';

/** Which organizations a caller may see (the authoring scope's shape): unset, all of them. */
type Scope = { organizationIds?: readonly string[] };

const summaryOf = (row: Selectable<BacktestsTable>) => ({
  backtestId: row.id,
  flowId: row.flow_id,
  target: row.target_kind === 'version' ? { kind: 'version' as const, number: row.target_version_number! } : { kind: 'draft' as const },
  status: row.status,
  selection: row.selection as BacktestSelection,
  onlyCompleted: row.only_completed,
  judge: row.judge as BacktestJudge | null,
  repeatOf: row.repeat_of,
  summary: { total: row.total, same: row.same, different: row.different, failed: row.failed, erased: row.erased, compared: row.same + row.different + row.failed, differentButAccepted: row.accepted },
  startedAt: row.started_at.toISOString(),
  finishedAt: row.finished_at?.toISOString() ?? null,
});

/** A flow's backtests, newest first (read model). */
export async function listBacktests(db: Kysely<ReadModels>, scope: Scope, input: { flowId: string; limit: number }) {
  if (scope.organizationIds?.length === 0) return [];
  let query = db.selectFrom('backtests').selectAll().where('flow_id', '=', input.flowId);
  if (scope.organizationIds) query = query.where('organization_id', 'in', scope.organizationIds);
  const rows = await query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(input.limit).execute();
  return rows.map(summaryOf);
}

/**
 * A backtest and a page of its pairs in the order it chose the runs; `onlyChanged` leaves out the
 * pairs that came out the same. A pair not compared yet has outcome null (the backtest is running).
 */
export async function backtestPage(db: Kysely<ReadModels>, scope: Scope, input: { backtestId: string; cursor?: number; limit: number; onlyChanged?: boolean; executionId?: string }) {
  let query = db.selectFrom('backtests').selectAll().where('id', '=', input.backtestId);
  if (scope.organizationIds) query = scope.organizationIds.length === 0 ? query.where(sql<boolean>`false`) : query.where('organization_id', 'in', scope.organizationIds);
  const row = await query.executeTakeFirst();
  if (!row) throw new ApiError('BACKTEST_NOT_FOUND', `No backtest ${input.backtestId}`);
  let pairs = db.selectFrom('backtest_pairs').selectAll().where('backtest_id', '=', input.backtestId);
  if (input.cursor !== undefined) pairs = pairs.where('position', '>', input.cursor);
  if (input.executionId) pairs = pairs.where('execution_id', '=', input.executionId);
  if (input.onlyChanged) pairs = pairs.where('outcome', 'in', ['different', 'failed']);
  const rows = await pairs.orderBy('position').limit(input.limit + 1).execute();
  const page = rows.slice(0, input.limit);
  return {
    ...summaryOf(row),
    pairs: page.map((p) => ({
      position: p.position,
      executionId: p.execution_id,
      backtestExecutionId: p.backtest_execution_id,
      outcome: p.outcome,
      changes: (p.changes ?? []) as ResultChange[],
      more: p.more ?? 0,
      original: p.original as PairSide | null,
      candidate: p.candidate as PairSide | null,
      judge: p.judge as RecordedAssertionResult | null,
    })),
    nextCursor: rows.length > input.limit ? page.at(-1)!.position : null,
  };
}

/** What the latest finished backtest of a version says, for the promotion gate's backtest rule. */
export async function backtestGateStatusOf(db: Kysely<ReadModels>, flowId: string, versionId: string): Promise<BacktestGateStatus> {
  const latest = await db
    .selectFrom('backtests')
    .select(['id', 'total', 'different', 'failed', 'accepted', 'erased'])
    .where('flow_id', '=', flowId)
    .where('target_version_id', '=', versionId)
    .where('status', '=', 'finished')
    .orderBy('finished_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  // A different answer its judge scored as not mattering is not a change the gate counts; a run
  // skipped as erased was not compared: the share is of the runs compared.
  return latest ? { status: 'ran', backtestId: latest.id, total: latest.total - latest.erased, changed: latest.different - latest.accepted + latest.failed } : { status: 'not_run' };
}
