import type { CommandDependencies, CommandMetadata } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { organization } from '../domain/organizations/organization.ts';
import { organizationStream } from '../domain/organizations/organizationEvents.ts';
import { loadStream } from '../eventstore/streams.ts';
import { decideApproval } from '../execution/decideApproval.ts';
import { approvalOwner } from '../queries/approvalQueries.ts';

/** The subject a principal signed in as (a console link names its operator after `link:`). */
const subjectOf = (principal: Principal) => (principal.id.startsWith('link:') ? principal.id.slice('link:'.length) : principal.id);

/**
 * A decision from the console or MCP: the signed-in person decides as the member they are of the
 * run's organization (their role read from its stream), so an operator who is no member is refused,
 * as the REST route refuses a stranger. The block's approvers are checked by the decider.
 */
export async function decideAsMember(
  deps: CommandDependencies,
  input: { executionId: string; stepId: string; decision: 'approve' | 'reject'; comment: string | null },
  metadata: CommandMetadata,
  /** Whether the caller may reach the organization at all (an assistant's scope): a run outside it is not found. */
  reaches: (organizationId: string) => boolean = () => true,
) {
  const owner = await approvalOwner(deps.eventStore, input.executionId, input.stepId).catch(() => null);
  if (!owner || !reaches(owner.organizationId)) throw new ApiError('EXECUTION_NOT_FOUND', `No run ${input.executionId} waits for an approval at '${input.stepId}' that you can reach`);
  const { state } = await loadStream(deps.eventStore, organizationStream(owner.organizationId), organization);
  const subject = subjectOf(metadata.principal);
  const role = state.status === 'created' ? state.members.get(subject) : undefined;
  if (!role) throw new ApiError('FORBIDDEN', `approvals are decided by members of the run's organization; ${subject} is not one`);
  return decideApproval(deps, { ...input, flowId: owner.flowId, decider: { subject, role } }, metadata);
}
