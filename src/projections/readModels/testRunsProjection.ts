import type { Projection } from '../projection.ts';

/** Test runs: started against a target, then passed or not. */
export const testRunsProjection: Projection = {
  name: 'test_runs',
  handles: ['TestRunStarted', 'TestRunFinished'],
  tables: ['test_runs'],
  async apply(trx, event, { occurredAt }) {
    if (event.type === 'TestRunStarted') {
      const { testRunId, testCaseId, flowId, organizationId, executionId, target } = event.data;
      await trx
        .insertInto('test_runs')
        .values({ id: testRunId, test_case_id: testCaseId, flow_id: flowId, organization_id: organizationId, execution_id: executionId, target_kind: target.kind, target_version_id: target.kind === 'version' ? target.versionId : null, passed: null, started_at: occurredAt, finished_at: null })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    } else if (event.type === 'TestRunFinished') {
      await trx.updateTable('test_runs').set({ passed: event.data.passed, finished_at: occurredAt }).where('id', '=', event.data.testRunId).execute();
    }
  },
};
