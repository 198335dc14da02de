import type { Projection } from '../projection.ts';

/**
 * Every run, one row, for the operators' listing: how it was started (mode, API key, test run,
 * rerun), and a status that does not hide what a bare "running" would: `paused` while it waits for
 * tool results, `retrying` once a job was taken over (claimed again), `completed` or `failed`.
 */
export const runsProjection: Projection = {
  name: 'runs',
  handles: ['ExecutionRequested', 'JobClaimed', 'ExecutionPausedForToolCalls', 'ExecutionResumed', 'ExecutionCompleted', 'ExecutionFailed'],
  tables: ['runs'],
  async apply(trx, event, { occurredAt }) {
    const update = (values: Record<string, unknown>) => trx.updateTable('runs').set(values).where('execution_id', '=', (event.data as { executionId: string }).executionId).execute();
    switch (event.type) {
      case 'ExecutionRequested': {
        const d = event.data;
        await trx
          .insertInto('runs')
          .values({ execution_id: d.executionId, organization_id: d.organizationId, project_id: d.projectId, flow_id: d.flowId, version_number: d.versionNumber, mode: d.mode, api_key_id: d.apiKeyId, test_run_id: d.testRunId, rerun_of: d.rerunOf, status: d.mode === 'async' ? 'queued' : 'running', claims: 0, failure_code: null, created_at: occurredAt, ended_at: null, duration_ms: null })
          .onConflict((oc) => oc.column('execution_id').doNothing())
          .execute();
        return;
      }
      case 'JobClaimed':
        await update({ claims: event.data.claim, status: event.data.claim > 1 ? 'retrying' : 'running' });
        return;
      case 'ExecutionPausedForToolCalls':
        await update({ status: 'paused' });
        return;
      case 'ExecutionResumed':
        await update({ status: 'running' });
        return;
      case 'ExecutionCompleted':
        await update({ status: 'completed', ended_at: occurredAt, duration_ms: event.data.durationMs });
        return;
      case 'ExecutionFailed':
        await update({ status: 'failed', failure_code: event.data.code, ended_at: occurredAt, duration_ms: event.data.durationMs });
        return;
    }
  },
};
