import type { Kysely } from 'kysely';
import type { ApprovalRequested } from '../domain/blocks/approval/approvalEvents.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { EventOf } from '../domain/events/eventDefinition.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** An approval as its queue shows it: where it waits, for whom, until when, and the text the approver reads. */
export interface WaitingApproval {
  executionId: string;
  stepId: string;
  organizationId: string;
  projectId: string;
  flowId: string;
  flow: { slug: string; name: string } | null;
  approvers: { roles: string[]; members: string[] };
  onTimeout: string;
  requestedAt: string;
  dueAt: string;
  /** From the run's sealed events ('' once its data is erased). */
  text: string;
}

/** The approval a run asked for at `stepId`, from its own stream (its text opened). */
async function requestedIn(eventStore: EventStore, executionId: string, stepId: string): Promise<EventOf<typeof ApprovalRequested>['data'] | undefined> {
  const events = (await eventStore.readStream(executionStream(executionId))).map(decodeRecorded);
  const asked = events.filter((e) => e.type === 'ApprovalRequested').map((e) => e.data as EventOf<typeof ApprovalRequested>['data']);
  return asked.find((a) => a.blockName === stepId);
}

/**
 * The approvals waiting for a decision, oldest first (those whose deadline comes first at the top
 * of an equal age), of one organization or all: the read model says which; each one's text is read
 * from its run, a stream per approval listed (a page is at most 100).
 */
export async function waitingApprovals(deps: { db: Kysely<ReadModels>; eventStore: EventStore }, filter: { organizationId?: string; flowId?: string; limit: number }): Promise<WaitingApproval[]> {
  let query = deps.db
    .selectFrom('approvals')
    .leftJoin('flows', 'flows.id', 'approvals.flow_id')
    .select(['approvals.execution_id', 'approvals.block_name', 'approvals.organization_id', 'approvals.project_id', 'approvals.flow_id', 'approvals.approvers', 'approvals.on_timeout', 'approvals.requested_at', 'approvals.due_at', 'flows.slug', 'flows.name'])
    .where('approvals.status', '=', 'waiting')
    .orderBy('approvals.requested_at')
    .orderBy('approvals.execution_id')
    .limit(filter.limit);
  if (filter.organizationId) query = query.where('approvals.organization_id', '=', filter.organizationId);
  if (filter.flowId) query = query.where('approvals.flow_id', '=', filter.flowId);
  const rows = await query.execute();
  return Promise.all(
    rows.map(async (row) => ({
      executionId: row.execution_id,
      stepId: row.block_name,
      organizationId: row.organization_id,
      projectId: row.project_id,
      flowId: row.flow_id,
      flow: row.slug !== null && row.name !== null ? { slug: row.slug, name: row.name } : null,
      approvers: row.approvers as WaitingApproval['approvers'],
      onTimeout: row.on_timeout,
      requestedAt: row.requested_at.toISOString(),
      dueAt: row.due_at.toISOString(),
      text: (await requestedIn(deps.eventStore, row.execution_id, row.block_name))?.text ?? '',
    })),
  );
}

/** Whose an approval is (its organization and flow), from the run's own stream: the log, not a read model that may lag. */
export async function approvalOwner(eventStore: EventStore, executionId: string, stepId: string) {
  const asked = await requestedIn(eventStore, executionId, stepId);
  if (!asked) throw new ApiError('APPROVAL_NOT_WAITING', `execution ${executionId} has asked for no approval at '${stepId}'`);
  return { organizationId: asked.organizationId, flowId: asked.flowId };
}
