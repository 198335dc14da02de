import { z } from 'zod';
import { decideAsMember } from '../../approvals/operatorDecision.ts';
import { waitingApprovals } from '../../queries/approvalQueries.ts';
import { operatorProcedure, router } from './trpc.ts';

const id = z.string().min(1).max(200);

/**
 * The console's queue of approvals that wait for a decision (approval blocks, docs/flows.md), and
 * the decision itself, taken as the member of the run's organization the operator is: a second
 * decision is refused (APPROVAL_ALREADY_DECIDED) as it is over REST.
 */
export const approvalProcedures = router({
  waiting: operatorProcedure
    .input(z.object({ organizationId: id.optional(), flowId: id.optional(), limit: z.number().int().min(1).max(100).default(50) }).default({ limit: 50 }))
    .query(({ ctx, input }) => waitingApprovals(ctx.services, input)),
  decide: operatorProcedure
    .input(z.object({ executionId: id, stepId: z.string().min(1).max(64), decision: z.enum(['approve', 'reject']), comment: z.string().max(2_000).optional() }))
    .mutation(async ({ ctx, input }) => {
      const { position: _position, ...decided } = await decideAsMember(ctx.services.commands, { ...input, comment: input.comment ?? null }, ctx.metadata);
      return decided;
    }),
});
