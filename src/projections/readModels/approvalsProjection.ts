import type { Transaction } from 'kysely';
import { deciderName } from '../../domain/blocks/approval/approvalEvents.ts';
import type { DomainEvent } from '../../domain/domainEvent.ts';
import type { Projection, ProjectionContext } from '../projection.ts';
import type { ReadModels } from '../readModelSchema.ts';

type Handed = { event: DomainEvent; context: ProjectionContext };

/**
 * Approval blocks' waits (issue 61), one row each: the waiting queue the console, MCP and REST list,
 * and the timeout sweep's index (`due_at`, from the request's record in the log plus its timeout:
 * the database's clock, which the sweep compares with now()). Only what the run did is kept: the
 * approver's text and comment stay sealed in the run's events. A run that ended while it waited
 * (cancelled) leaves its row `run_ended`, so the sweep stops proposing it.
 */
export const approvalsProjection: Projection = {
  name: 'approvals',
  handles: ['ApprovalRequested', 'ApprovalDecided', 'ExecutionFailed'],
  tables: ['approvals'],
  async apply(trx, event, context) {
    await applyAll(trx, [{ event, context }]);
  },
  applyAll,
};

async function applyAll(trx: Transaction<ReadModels>, handed: readonly Handed[]) {
  const failed: string[] = [];
  for (const { event, context } of handed) {
    if (event.type === 'ApprovalRequested') {
      const d = event.data;
      const requestedAt = context.recorded.recordedAt;
      await trx
        .insertInto('approvals')
        .values({
          execution_id: d.executionId, block_name: d.blockName, step_index: d.stepIndex, organization_id: d.organizationId, project_id: d.projectId, flow_id: d.flowId,
          approvers: JSON.stringify(d.approvers), on_timeout: d.onTimeout, status: 'waiting', requested_at: requestedAt.toISOString(), due_at: new Date(requestedAt.getTime() + d.timeoutMs).toISOString(), decided_at: null, decided_by: null,
        })
        .onConflict((oc) => oc.columns(['execution_id', 'block_name']).doNothing())
        .execute();
    } else if (event.type === 'ApprovalDecided') {
      const d = event.data;
      const status = d.decision ?? 'timed_out';
      await trx.updateTable('approvals').set({ status, decided_at: d.decidedAt, decided_by: deciderName(d.decidedBy) }).where('execution_id', '=', d.executionId).where('block_name', '=', d.blockName).execute();
    } else if (event.type === 'ExecutionFailed') failed.push(event.data.executionId);
  }
  // Most failed runs never waited: one statement for the batch's, on the key's prefix.
  if (failed.length > 0) await trx.updateTable('approvals').set({ status: 'run_ended' }).where('execution_id', 'in', failed).where('status', '=', 'waiting').execute();
}
