import type { DomainEvent } from '../../domain/domainEvent.ts';
import type { ExecutionEvent } from '../../domain/execution/executionEvents.ts';
import { statusAfter } from '../../domain/execution/runStatus.ts';
import type { Projection } from '../projection.ts';

/**
 * Every run, one row, for the listings: how it was started (mode, API key, test run, rerun), and
 * its run status (runStatus.ts: the status each event gives, so no earlier row is read). `runner`:
 * the process that took up the run last (its request or its resume), for the interrupted-run sweep.
 */
export const runsProjection: Projection = {
  name: 'runs',
  handles: ['ExecutionRequested', 'JobClaimed', 'ExecutionPausedForToolCalls', 'ExecutionResumed', 'ExecutionCompleted', 'ExecutionFailed'],
  tables: ['runs'],
  async apply(trx, event, { occurredAt, recorded }) {
    const runner = recorded.metadata.runner ?? null;
    const status = statusAfter(event as DomainEvent as ExecutionEvent);
    const update = (values: Record<string, unknown>) => trx.updateTable('runs').set(values).where('execution_id', '=', (event.data as { executionId: string }).executionId).execute();
    switch (event.type) {
      case 'ExecutionRequested': {
        const d = event.data;
        await trx
          .insertInto('runs')
          .values({ execution_id: d.executionId, organization_id: d.organizationId, project_id: d.projectId, flow_id: d.flowId, version_number: d.versionNumber, mode: d.mode, api_key_id: d.apiKeyId, test_run_id: d.testRunId, rerun_of: d.rerunOf, status: status!, claims: 0, failure_code: null, created_at: occurredAt, ended_at: null, duration_ms: null, runner: d.mode === 'async' ? null : runner })
          .onConflict((oc) => oc.column('execution_id').doNothing())
          .execute();
        return;
      }
      case 'JobClaimed':
        await update({ claims: event.data.claim, status });
        return;
      case 'ExecutionPausedForToolCalls':
        await update({ status });
        return;
      case 'ExecutionResumed':
        await update({ status, runner });
        return;
      case 'ExecutionCompleted':
        await update({ status, ended_at: occurredAt, duration_ms: event.data.durationMs });
        return;
      case 'ExecutionFailed':
        await update({ status, failure_code: event.data.code, ended_at: occurredAt, duration_ms: event.data.durationMs });
        return;
    }
  },
};
