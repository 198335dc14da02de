import type { Selectable, Transaction } from 'kysely';
import type { DomainEvent } from '../../domain/domainEvent.ts';
import type { ExecutionEvent } from '../../domain/execution/executionEvents.ts';
import { type JobView, evolveJobView } from '../../domain/execution/jobView.ts';
import type { Projection } from '../projection.ts';
import type { JobsTable, ReadModels } from '../readModelSchema.ts';

/** /jobs runs, one row each, evolved by the same function a poll folds the run's events with (jobView.ts). */
export const jobsProjection: Projection = {
  name: 'jobs',
  handles: ['ExecutionRequested', 'JobClaimed', 'ExecutionCompleted', 'ExecutionFailed'],
  tables: ['jobs'],
  async apply(trx, event, { occurredAt }) {
    const executionId = (event.data as { executionId: string }).executionId;
    const before = event.type === 'ExecutionRequested' ? null : await current(trx, executionId);
    const after = evolveJobView(before, { event: event as DomainEvent as ExecutionEvent, occurredAt });
    if (!after || after === before) return;
    const row = {
      status: after.status,
      claims: after.claims,
      result: after.result === null ? null : JSON.stringify(after.result),
      failure_reason: after.failureReason,
      error_code: after.errorCode,
      error_message: after.errorMessage,
      started_at: after.startedAt,
      completed_at: after.completedAt,
      duration_ms: after.durationMs,
    };
    if (before === null) {
      const { projectId, organizationId } = event.data as { projectId: string; organizationId: string };
      await trx
        .insertInto('jobs')
        .values({ execution_id: after.executionId, flow_id: after.flowId, project_id: projectId, organization_id: organizationId, created_at: after.createdAt, ...row })
        .onConflict((oc) => oc.column('execution_id').doNothing())
        .execute();
    } else {
      await trx.updateTable('jobs').set(row).where('execution_id', '=', executionId).execute();
    }
  },
};

async function current(trx: Transaction<ReadModels>, executionId: string): Promise<JobView | null> {
  const row = await trx.selectFrom('jobs').selectAll().where('execution_id', '=', executionId).executeTakeFirst();
  return row ? jobViewOfRow(row) : null;
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
  };
}
