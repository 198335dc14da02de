import type { Insertable, Transaction, Updateable } from 'kysely';
import type { DomainEvent } from '../../domain/domainEvent.ts';
import type { ExecutionEvent } from '../../domain/execution/executionEvents.ts';
import { statusAfter } from '../../domain/execution/runStatus.ts';
import type { Projection, ProjectionContext } from '../projection.ts';
import type { ReadModels, RunsTable } from '../readModelSchema.ts';
import { type ColumnTypes, updateRows } from '../updateRows.ts';

/** The columns one event of a run sets (its run status: the status each event gives, so no earlier row is read). */
function changesOf(event: ExecutionEvent, { recorded, occurredAt }: ProjectionContext): Updateable<RunsTable> {
  const status = statusAfter(event);
  switch (event.type) {
    case 'JobClaimed':
      return { claims: event.data.claim, status };
    case 'ExecutionPausedForToolCalls':
    case 'ApprovalRequested':
      return { status };
    case 'ApprovalDecided':
      // The run goes on as a job (its lease is its owner from here): no process's runner lease, so the interrupted-runs sweep leaves it to the job runners.
      return { status, runner: null };
    case 'ExecutionResumed':
      return { status, runner: recorded.metadata.runner ?? null };
    case 'ExecutionCompleted':
      return { status, ended_at: occurredAt, duration_ms: event.data.durationMs };
    case 'ExecutionFailed':
      return { status, failure_code: event.data.code, ended_at: occurredAt, duration_ms: event.data.durationMs };
    case 'RunDataErased':
      return { data_erased_at: event.data.erasedAt };
    default:
      return {};
  }
}

/** The columns changesOf sets, as updateRows casts them. */
const changedColumnTypes: ColumnTypes<RunsTable> = { claims: 'integer', status: 'text', runner: 'text', ended_at: 'timestamptz', duration_ms: 'integer', failure_code: 'text', data_erased_at: 'timestamptz' };

/**
 * A batch's events folded per run into one write each: the runs requested in the batch inserted as
 * they stand at its end (one insert for all), the others updated with what changed (one statement
 * per set of columns changed).
 */
async function applyAll(trx: Transaction<ReadModels>, events: readonly { event: DomainEvent; context: ProjectionContext }[]) {
  const inserts = new Map<string, Insertable<RunsTable>>();
  const updates = new Map<string, Updateable<RunsTable>>();
  for (const { event: domainEvent, context } of events) {
    const event = domainEvent as DomainEvent as ExecutionEvent;
    if (event.type === 'ExecutionRequested') {
      const d = event.data;
      if (inserts.has(d.executionId)) continue; // the same event twice in a replay
      const runner = context.recorded.metadata.runner ?? null;
      inserts.set(d.executionId, {
        execution_id: d.executionId, organization_id: d.organizationId, project_id: d.projectId, flow_id: d.flowId, version_number: d.versionNumber, mode: d.mode, api_key_id: d.apiKeyId,
        test_run_id: d.testRunId, rerun_of: d.rerunOf, backtest_id: d.backtestId, status: statusAfter(event)!, claims: 0, failure_code: null, created_at: context.occurredAt, ended_at: null, duration_ms: null,
        runner: d.mode === 'async' ? null : runner,
        started_via: context.recorded.metadata.principal.via ?? null,
        schedule_id: d.schedule?.scheduleId ?? null,
        parent_execution_id: d.parent?.executionId ?? null,
      });
      continue;
    }
    const executionId = (event.data as { executionId: string }).executionId;
    const changes = changesOf(event, context);
    const inserted = inserts.get(executionId);
    if (inserted) Object.assign(inserted, changes);
    else updates.set(executionId, { ...updates.get(executionId), ...changes });
  }
  if (inserts.size > 0) await trx.insertInto('runs').values([...inserts.values()]).onConflict((oc) => oc.column('execution_id').doNothing()).execute();
  await updateRows(trx, 'runs', 'execution_id', changedColumnTypes, updates);
  await shredErasedKeys(trx, events);
}

/**
 * An erasure's key removal made sure of: the erasing command removes the key just after appending
 * RunDataErased, and this removes it again from the log, for an erasure whose process died between.
 */
async function shredErasedKeys(trx: Transaction<ReadModels>, events: readonly { event: DomainEvent }[]) {
  for (const { event } of events) {
    if (event.type !== 'RunDataErased') continue;
    await trx
      .insertInto('run_data_keys')
      .values({ execution_id: event.data.executionId, wrapped_key: null, erased_at: event.data.erasedAt })
      .onConflict((oc) => oc.column('execution_id').doUpdateSet({ wrapped_key: null }))
      .execute();
  }
}

/**
 * Every run, one row, for the listings: how it was started (mode, API key, test run, rerun,
 * backtest), and its run status (runStatus.ts). `runner`: the process that took up the run last (its
 * request or its resume), for the interrupted-run sweep.
 */
export const runsProjection: Projection = {
  name: 'runs',
  handles: ['ExecutionRequested', 'JobClaimed', 'ExecutionPausedForToolCalls', 'ExecutionResumed', 'ApprovalRequested', 'ApprovalDecided', 'ExecutionCompleted', 'ExecutionFailed', 'RunDataErased'],
  tables: ['runs'],
  apply: (trx, event, context) => applyAll(trx, [{ event, context }]),
  applyAll,
};
