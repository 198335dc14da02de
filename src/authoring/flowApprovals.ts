import type { Kysely } from 'kysely';
import { decideAsMember } from '../approvals/operatorDecision.ts';
import type { CommandDependencies, CommandMetadata } from '../commands/commandHandler.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { waitingApprovals } from '../queries/approvalQueries.ts';
import { type AuthoringScope, inScope } from './authoringScope.ts';
import { requireFlow } from './flowAuthoring.ts';

/** A flow's approvals waiting for a decision, for an assistant of one of its organizations. */
export async function listFlowApprovals(deps: { commands: CommandDependencies; db: Kysely<ReadModels> }, scope: AuthoringScope, input: { flowId: string; limit: number }) {
  await requireFlow(deps.commands, scope, input.flowId);
  return waitingApprovals({ db: deps.db, eventStore: deps.commands.eventStore }, input);
}

/** A decision by the person an assistant acts for, as the member they are; a run outside the scope is not found. */
export const decideFlowApproval = (commands: CommandDependencies, scope: AuthoringScope, input: { executionId: string; stepId: string; decision: 'approve' | 'reject'; comment: string | null }, metadata: CommandMetadata) =>
  decideAsMember(commands, input, metadata, (organizationId) => inScope(scope, organizationId));
