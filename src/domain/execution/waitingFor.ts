import type { TimeoutPolicy } from '../blocks/approval/approvalConfig.ts';
import type { MemberRole } from '../organizations/memberRole.ts';

/**
 * What a run waits for outside it (an addition to the spec): a person's decision at an approval
 * block. The /execute answer, the job poll and the /step event show it; the text the approver
 * reads is listed with the approvals, not here.
 */
export interface WaitingFor {
  type: 'approval';
  stepId: string;
  approvers: { roles: MemberRole[]; members: string[] };
  onTimeout: TimeoutPolicy;
  timeoutMs: number;
  /** When the approval was asked for, and when its timeout policy decides (the sweep decides on the database's clock, within a few seconds of it). */
  requestedAt: string;
  dueAt: string;
}

export const waitingForOf = (requested: { blockName: string; approvers: WaitingFor['approvers']; onTimeout: TimeoutPolicy; timeoutMs: number }, requestedAt: string): WaitingFor => ({
  type: 'approval',
  stepId: requested.blockName,
  approvers: requested.approvers,
  onTimeout: requested.onTimeout,
  timeoutMs: requested.timeoutMs,
  requestedAt,
  dueAt: new Date(Date.parse(requestedAt) + requested.timeoutMs).toISOString(),
});
