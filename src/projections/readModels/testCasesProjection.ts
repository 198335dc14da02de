import type { Projection } from '../projection.ts';

/** Test cases by flow; a deleted one leaves no row. */
export const testCasesProjection: Projection = {
  name: 'test_cases',
  handles: ['TestCaseCreated', 'TestCaseUpdated', 'TestCaseDeleted'],
  tables: ['test_cases'],
  async apply(trx, event, { occurredAt }) {
    switch (event.type) {
      case 'TestCaseCreated': {
        const { testCaseId, flowId, organizationId, projectId, definition, fromExecutionId } = event.data;
        await trx
          .insertInto('test_cases')
          .values({ id: testCaseId, flow_id: flowId, organization_id: organizationId, project_id: projectId, name: definition.name, definition: JSON.stringify(definition), from_execution_id: fromExecutionId, created_at: occurredAt, updated_at: occurredAt })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'TestCaseUpdated':
        await trx.updateTable('test_cases').set({ name: event.data.definition.name, definition: JSON.stringify(event.data.definition), updated_at: occurredAt }).where('id', '=', event.data.testCaseId).execute();
        return;
      case 'TestCaseDeleted':
        await trx.deleteFrom('test_cases').where('id', '=', event.data.testCaseId).execute();
        return;
    }
  },
};
