import type { ApprovalEvent } from '../blocks/approval/approvalEvents.ts';
import type { TimeoutPolicy } from '../blocks/approval/approvalConfig.ts';
import { ApiError } from '../errors/apiError.ts';
import type { MemberRole } from '../organizations/memberRole.ts';
import type { ExecutionEvent } from './executionEvents.ts';

/** What a run waiting at an approval block waits for, from its ApprovalRequested. */
export interface ApprovalWait {
  stepIndex: number;
  blockId: string;
  blockName: string;
  approvers: { roles: MemberRole[]; members: string[] };
  onTimeout: TimeoutPolicy;
}

/** The part of a run's state a decision reads. */
export interface ApprovalState {
  executionId: string;
  flowId: string;
  status: 'running' | 'paused' | 'waiting' | 'completed' | 'failed';
  waiting: ApprovalWait | null;
  /** Approval blocks of this run decided so far, by name. */
  decided: ReadonlySet<string>;
}

/** A member's decision: `flowId` the flow the caller reached the run through (null: an operator's console, any flow). */
export interface MemberDecision {
  stepId: string;
  flowId: string | null;
  decision: 'approve' | 'reject';
  comment: string | null;
  decider: { subject: string; role: MemberRole };
  at: string;
}

/** The sweep found the approval's time up (on the database's clock): `durationMs` of the run so far, for a failure. */
export interface TimeoutDecision {
  stepId: string;
  at: string;
  durationMs: number;
}

export const mayDecide = (approvers: ApprovalWait['approvers'], decider: { subject: string; role: MemberRole }) => approvers.roles.includes(decider.role) || approvers.members.includes(decider.subject);

/**
 * Whether the approval at `stepId` can be decided now: exactly once. A run that is not waiting
 * there is refused (APPROVAL_ALREADY_DECIDED once it was, APPROVAL_NOT_WAITING otherwise); two
 * deciders racing append against one revision, and the loser decides again on the winner's state,
 * so it is refused too.
 */
function waitingAt(state: ApprovalState, stepId: string): ApprovalWait {
  if (state.decided.has(stepId)) throw new ApiError('APPROVAL_ALREADY_DECIDED', `the approval '${stepId}' of execution ${state.executionId} has already been decided`);
  if (state.status !== 'waiting' || state.waiting?.blockName !== stepId) {
    const where = state.status === 'waiting' ? `it waits at '${state.waiting!.blockName}'` : `it is ${state.status}`;
    throw new ApiError('APPROVAL_NOT_WAITING', `execution ${state.executionId} is not waiting for an approval at '${stepId}' (${where})`);
  }
  return state.waiting;
}

const refOf = (state: ApprovalState, wait: ApprovalWait) => ({ executionId: state.executionId, stepIndex: wait.stepIndex, blockId: wait.blockId, blockName: wait.blockName, iteration: null });

/** A member approves or rejects: refused unless the block names them or their role. */
export function decideByMember(data: MemberDecision, state: ApprovalState | null): ApprovalEvent[] {
  if (!state || (data.flowId !== null && state.flowId !== data.flowId)) throw new ApiError('EXECUTION_NOT_FOUND', 'No such execution');
  const wait = waitingAt(state, data.stepId);
  if (!mayDecide(wait.approvers, data.decider)) {
    const who = [...wait.approvers.roles.map((r) => `role ${r}`), ...wait.approvers.members.map((m) => `member ${m}`)].join(', ');
    throw new ApiError('FORBIDDEN', `'${data.stepId}' may be decided by ${who}; you are member ${data.decider.subject} (${data.decider.role})`);
  }
  const decision = data.decision === 'approve' ? 'approved' : 'rejected';
  return [{ type: 'ApprovalDecided', data: { ...refOf(state, wait), decision, comment: data.comment, decidedBy: { kind: 'member', ...data.decider }, decidedAt: data.at } }];
}

/**
 * The approval's time ran out: its policy decides, once. Nothing when it was decided meanwhile (a
 * member, or another sweep): a sweep that lost the race has nothing to do. `fail` ends the run in
 * the same append (APPROVAL_TIMED_OUT).
 */
export function decideByTimeout(data: TimeoutDecision, state: ApprovalState | null): ExecutionEvent[] {
  if (!state || state.status !== 'waiting' || state.waiting?.blockName !== data.stepId) return [];
  const wait = state.waiting;
  const decision = wait.onTimeout === 'approve' ? 'approved' : wait.onTimeout === 'reject' ? 'rejected' : null;
  const decided: ExecutionEvent = { type: 'ApprovalDecided', data: { ...refOf(state, wait), decision, comment: null, decidedBy: { kind: 'timeout' }, decidedAt: data.at } };
  if (decision !== null) return [decided];
  const message = `nobody decided the approval '${wait.blockName}' in time (on_timeout: fail)`;
  return [decided, { type: 'ExecutionFailed', data: { executionId: state.executionId, reason: 'error', code: 'APPROVAL_TIMED_OUT', message, detail: null, stepIndex: wait.stepIndex, blockName: wait.blockName, durationMs: data.durationMs } }];
}
