import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type ToolContext, answer } from '../toolContext.ts';
import { flowId } from './authoringShapes.ts';

/** Approval blocks' waits: which runs of a flow wait for a person, and the decision of the person the assistant acts for. */
export function registerApprovalTools(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    'list_approvals',
    {
      title: 'List approvals waiting for a decision',
      description: "A flow's runs that wait at an approval block, oldest first: the text the approver reads, who may decide (roles, members), and when the block's on_timeout decides instead. Decide one with decide_approval.",
      inputSchema: { flow_id: flowId, limit: z.number().int().min(1).max(100).optional().describe('At most this many (default 20)') },
      outputSchema: {
        approvals: z.array(
          z.object({
            flow_run_id: z.string(),
            step_id: z.string().describe("The approval block's name: decide_approval's step_id"),
            text: z.string(),
            approvers: z.object({ roles: z.array(z.string()), members: z.array(z.string()) }),
            on_timeout: z.string(),
            requested_at: z.string(),
            due_at: z.string(),
          }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const waiting = await ctx.services.authoring.listApprovals(ctx.scope, { flowId: args.flow_id, limit: args.limit ?? 20 });
        return { approvals: waiting.map((a) => ({ flow_run_id: a.executionId, step_id: a.stepId, text: a.text, approvers: a.approvers, on_timeout: a.onTimeout, requested_at: a.requestedAt, due_at: a.dueAt })) };
      }),
  );

  server.registerTool(
    'decide_approval',
    {
      title: 'Approve or reject a waiting approval',
      description:
        "Decides the approval a run waits at, as the person this assistant acts for (their role in the run's organization must be one the block names, or the block must name them). Once per approval: a second decision is refused (APPROVAL_ALREADY_DECIDED). Ask the person before deciding for them. The run then goes on; read it with get_test_run_trace(flow_run_id).",
      inputSchema: {
        flow_run_id: z.string().min(1).max(200),
        step_id: z.string().min(1).max(64).describe("The approval block's name (list_approvals' step_id)"),
        decision: z.enum(['approve', 'reject']),
        comment: z.string().max(2_000).optional().describe('Why: recorded with the decision'),
      },
      outputSchema: { flow_run_id: z.string(), step_id: z.string(), decision: z.enum(['approved', 'rejected']), decided_by: z.string(), role: z.string(), decided_at: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const decided = await ctx.services.authoring.decideApproval(ctx.scope, { executionId: args.flow_run_id, stepId: args.step_id, decision: args.decision, comment: args.comment ?? null }, ctx.metadata);
        return { flow_run_id: decided.executionId, step_id: decided.stepId, decision: decided.decision!, decided_by: decided.decidedBy, role: decided.role, decided_at: decided.decidedAt };
      }),
  );
}
