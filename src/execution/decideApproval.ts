import { type CommandDependencies, type CommandMetadata, handleCommand } from '../commands/commandHandler.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import type { MemberRole } from '../domain/organizations/memberRole.ts';

/** A person's (or an API key's, acting as a member) decision of the approval a run waits at. */
export interface ApprovalDecisionInput {
  executionId: string;
  stepId: string;
  /** The flow the caller reached the run through (null: an operator's console, any flow of the organization). */
  flowId: string | null;
  decision: 'approve' | 'reject';
  comment: string | null;
  decider: { subject: string; role: MemberRole };
}

/**
 * Records the decision (ApprovalDecided), exactly once: the decider refuses a second one
 * (APPROVAL_ALREADY_DECIDED, 409), and one racing another, or the timeout's sweep, appends against
 * the same revision, loses, and is decided again on the winner's state, so it is refused too. The
 * run then goes on as a job: a job runner claims it once the jobs read model shows it no longer waits.
 */
export async function decideApproval(deps: CommandDependencies, input: ApprovalDecisionInput, metadata: CommandMetadata) {
  const at = deps.now().toISOString();
  const { executionId, stepId, flowId, decision, comment, decider } = input;
  const result = await handleCommand(deps, executionStream(executionId), execution, { type: 'DecideApproval', data: { stepId, flowId, decision, comment, decider, at } }, { ...metadata, correlationId: executionId });
  // A member's decision is one ApprovalDecided, approved or rejected (the decider refuses anything else).
  return { executionId, stepId, decision: decision === 'approve' ? ('approved' as const) : ('rejected' as const), decidedBy: decider.subject, role: decider.role, decidedAt: at, position: result.position };
}
