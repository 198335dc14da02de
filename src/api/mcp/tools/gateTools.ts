import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type ToolContext, answer, settled } from '../toolContext.ts';
import { flowId, write } from './authoringShapes.ts';

const gate = {
  flow_id: z.string(),
  tests_required: z.boolean().describe('Whether a version becomes production only once every test case passed on it'),
  backtest_max_changed_percent: z.number().nullable().describe('Whether it also needs a finished backtest that changed at most this share (%) of the answers (null: no backtest rule)'),
};

/**
 * The flow's promotion gate, which set_production_version applies: readable (so an assistant knows
 * why a promotion is refused before it tries) and settable, as `seqflow flow gate` sets it.
 */
export function registerGateTools(server: McpServer, ctx: ToolContext) {
  const current = async (flow_id: string) => {
    const flow = await ctx.services.authoring.requireFlow(ctx.scope, flow_id);
    return { flow_id, tests_required: flow.promotionGate, backtest_max_changed_percent: flow.backtestGate };
  };

  server.registerTool(
    'get_gate',
    {
      title: "Read a flow's promotion gate",
      description: 'What set_production_version requires of a version before it goes live: passing test cases, and at most a share of changed answers in a backtest.',
      inputSchema: { flow_id: flowId },
      outputSchema: gate,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => answer(ctx, () => current(args.flow_id)),
  );

  server.registerTool(
    'set_gate',
    {
      title: "Set a flow's promotion gate",
      description: 'Turns the test-case rule on or off and sets (or, with null, removes) the backtest rule. Fields left out stay as they are. Each change is recorded.',
      inputSchema: {
        flow_id: flowId,
        tests_required: z.boolean().optional(),
        backtest_max_changed_percent: z.number().min(0).max(100).nullable().optional(),
      },
      outputSchema: gate,
      annotations: { ...write, idempotentHint: true },
    },
    (args) =>
      answer(ctx, async () => {
        if (args.tests_required !== undefined) await settled(ctx, (await ctx.services.authoring.setPromotionGate(ctx.scope, { flowId: args.flow_id, enabled: args.tests_required }, ctx.metadata)).position);
        if (args.backtest_max_changed_percent !== undefined) await settled(ctx, (await ctx.services.authoring.setBacktestGate(ctx.scope, { flowId: args.flow_id, maxChangedPercent: args.backtest_max_changed_percent }, ctx.metadata)).position);
        return current(args.flow_id);
      }),
  );
}
