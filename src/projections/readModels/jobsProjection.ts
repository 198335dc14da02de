import type { Selectable, Transaction } from 'kysely';
import type { DomainEvent } from '../../domain/domainEvent.ts';
import type { ExecutionEvent } from '../../domain/execution/executionEvents.ts';
import { type JobView, evolveJobView } from '../../domain/execution/jobView.ts';
import type { Projection, ProjectionContext } from '../projection.ts';
import type { JobsTable, ReadModels } from '../readModelSchema.ts';
import { type ColumnTypes, updateRows } from '../updateRows.ts';
import { openedWhere } from '../openedWhere.ts';

const rowOf = (view: JobView) => ({
  status: view.status,
  claims: view.claims,
  result: view.result === null ? null : JSON.stringify(view.result),
  failure_reason: view.failureReason,
  error_code: view.errorCode,
  error_message: view.errorMessage,
  error_detail: view.errorDetail,
  started_at: view.startedAt,
  completed_at: view.completedAt,
  duration_ms: view.durationMs,
  data_erased_at: view.dataErasedAt,
  waiting_for: view.waitingFor === null ? null : JSON.stringify(view.waitingFor),
});

/** The columns rowOf sets, as updateRows casts them. */
const rowColumnTypes: ColumnTypes<JobsTable> = { status: 'text', claims: 'integer', result: 'jsonb', failure_reason: 'text', error_code: 'text', error_message: 'text', error_detail: 'text', started_at: 'timestamptz', completed_at: 'timestamptz', duration_ms: 'integer', data_erased_at: 'timestamptz', waiting_for: 'jsonb' };

type Owner = { projectId: string; organizationId: string };

/** Writes the job views that changed: new rows for jobs first seen (one insert), the others' rows updated (one statement). */
async function write(trx: Transaction<ReadModels>, changed: { before: JobView | null; after: JobView; owner?: Owner }[]) {
  const created = changed.filter((c) => c.before === null);
  if (created.length > 0) {
    await trx
      .insertInto('jobs')
      .values(created.map(({ after, owner }) => ({ execution_id: after.executionId, flow_id: after.flowId, project_id: owner!.projectId, organization_id: owner!.organizationId, created_at: after.createdAt, ...rowOf(after) })))
      .onConflict((oc) => oc.column('execution_id').doNothing())
      .execute();
  }
  const updated = new Map(changed.filter((c) => c.before !== null).map(({ after }) => [after.executionId, rowOf(after)]));
  await updateRows(trx, 'jobs', 'execution_id', rowColumnTypes, updated);
}

const executionIdOf = (event: DomainEvent) => (event.data as { executionId: string }).executionId;

/**
 * /jobs runs, one row each, evolved by the same function a poll folds the run's events with
 * (jobView.ts). A batch reads the rows of its runs in one query and writes each job that changed
 * once: the runs that are not jobs (sync, step, test, backtest) cost no query per event.
 */
export const jobsProjection: Projection = {
  name: 'jobs',
  handles: ['ExecutionRequested', 'JobClaimed', 'ApprovalRequested', 'ApprovalDecided', 'ExecutionCompleted', 'ExecutionFailed', 'RunDataErased'],
  opens: ['ExecutionCompleted', 'ExecutionFailed'],
  tables: ['jobs'],
  async apply(trx, event, context) {
    await applyAll(trx, [{ event, context }]);
  },
  applyAll,
};

async function applyAll(trx: Transaction<ReadModels>, handed: readonly { event: DomainEvent; context: ProjectionContext }[]) {
  const known = new Set(handed.filter(({ event }) => event.type !== 'ExecutionRequested').map(({ event }) => executionIdOf(event)));
  const stored = known.size === 0 ? [] : await trx.selectFrom('jobs').selectAll().where('execution_id', 'in', [...known]).execute();
  const views = new Map<string, { before: JobView | null; after: JobView | null; owner?: Owner }>(stored.map((row) => [row.execution_id, { before: jobViewOfRow(row), after: jobViewOfRow(row) }]));
  const events = await withJobResultsOpened(handed, new Set(stored.map((row) => row.execution_id)));
  for (const { event, context } of events) {
    const executionId = executionIdOf(event);
    const entry = views.get(executionId) ?? { before: null, after: null };
    const after = evolveJobView(entry.after, { event: event as DomainEvent as ExecutionEvent, occurredAt: context.occurredAt });
    if (after === entry.after) continue;
    if (event.type === 'ExecutionRequested' || (event.type === 'ApprovalRequested' && entry.after === null)) entry.owner = { projectId: event.data.projectId, organizationId: event.data.organizationId };
    views.set(executionId, { ...entry, after });
  }
  await write(trx, [...views.values()].flatMap(({ before, after, owner }) => (after && after !== before ? [{ before, after, owner }] : [])));
}

/**
 * The batch with the results (and failures' details) of jobs opened: a job's row keeps them, other
 * runs' are read by no one here, so they are not opened (a cipher call and a key look-up each saved
 * on every /execute run). Jobs are the runs with a row, and those whose request (mode `async`) or
 * approval request (a run that goes on as a job) is in the batch.
 */
function withJobResultsOpened(handed: readonly { event: DomainEvent; context: ProjectionContext }[], jobs: Set<string>) {
  for (const { event } of handed) if ((event.type === 'ExecutionRequested' && event.data.mode === 'async') || event.type === 'ApprovalRequested') jobs.add(event.data.executionId);
  return openedWhere(handed, ({ event }) => (event.type === 'ExecutionCompleted' || event.type === 'ExecutionFailed') && jobs.has(event.data.executionId));
}

/** A jobs row as the job view it stores. */
export function jobViewOfRow(row: Selectable<JobsTable>): JobView {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    executionId: row.execution_id,
    flowId: row.flow_id,
    status: row.status,
    claims: row.claims,
    createdAt: row.created_at.toISOString(),
    startedAt: iso(row.started_at),
    completedAt: iso(row.completed_at),
    durationMs: row.duration_ms,
    result: row.result as JobView['result'],
    failureReason: row.failure_reason as JobView['failureReason'],
    errorCode: row.error_code,
    errorMessage: row.error_message,
    errorDetail: row.error_detail,
    dataErasedAt: iso(row.data_erased_at),
    waitingFor: (row.waiting_for ?? null) as JobView['waitingFor'],
  };
}
