import { sql } from 'kysely';
import type { Projection } from '../projection.ts';

/** /jobs runs: accepted (started), claimed by a worker (running), and how they ended. Sync runs have no row. */
export const jobsProjection: Projection = {
  name: 'jobs',
  handles: ['ExecutionRequested', 'JobClaimed', 'ExecutionCompleted', 'ExecutionFailed'],
  tables: ['jobs'],
  async apply(trx, event, { occurredAt }) {
    switch (event.type) {
      case 'ExecutionRequested': {
        if (event.data.mode !== 'async') return;
        const { executionId, flowId, projectId, organizationId } = event.data;
        await trx
          .insertInto('jobs')
          .values({ execution_id: executionId, flow_id: flowId, project_id: projectId, organization_id: organizationId, status: 'started', result: null, failure_reason: null, error_code: null, error_message: null, created_at: occurredAt, started_at: null, completed_at: null, duration_ms: null })
          .onConflict((oc) => oc.column('execution_id').doNothing())
          .execute();
        return;
      }
      case 'JobClaimed':
        // Only an open job moves to running; the first claim sets started_at, the count is the claim number.
        await trx
          .updateTable('jobs')
          .set({ status: 'running', claims: event.data.claim, started_at: sql<string>`coalesce(started_at, ${occurredAt}::timestamptz)` })
          .where('execution_id', '=', event.data.executionId)
          .where('status', 'in', ['started', 'running'])
          .execute();
        return;
      case 'ExecutionCompleted':
        await trx
          .updateTable('jobs')
          .set({ status: 'completed', result: JSON.stringify(event.data.result), completed_at: occurredAt, duration_ms: event.data.durationMs })
          .where('execution_id', '=', event.data.executionId)
          .execute();
        return;
      case 'ExecutionFailed':
        await trx
          .updateTable('jobs')
          .set({ status: 'failed', failure_reason: event.data.reason, error_code: event.data.code, error_message: event.data.message, completed_at: occurredAt, duration_ms: event.data.durationMs })
          .where('execution_id', '=', event.data.executionId)
          .execute();
        return;
    }
  },
};
