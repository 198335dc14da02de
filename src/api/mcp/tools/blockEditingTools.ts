import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type ToolContext, answer, settled } from '../toolContext.ts';
import { draftTexts, kindHints, edited, flowId, stepId, write } from './authoringShapes.ts';
import { stepIdHint } from './stepIdHint.ts';
import { authoringWarnings } from './visionWarning.ts';

/** Changing a draft block's settings, prompt or code, and output schema: each change one event. */
export function registerBlockEditingTools(server: McpServer, ctx: ToolContext) {

  server.registerTool(
    'update_block',
    {
      title: 'Update a block',
      description: `Changes a block's name, model (null: the service's default model), prompt, code or processor_config (e.g. {tools_enabled: true, max_tool_iterations: 5}). Fields left out stay as they are. ${kindHints('editing')}`,
      inputSchema: {
        flow_id: flowId,
        step_id: stepId,
        name: z.string().min(1).max(100).optional(),
        model: z.string().min(1).nullable().optional(),
        prompt: z.string().optional(),
        code: z.string().optional(),
        processor_config: z.record(z.string(), z.unknown()).optional(),
      },
      outputSchema: edited,
      annotations: { ...write, idempotentHint: true },
    },
    ({ flow_id, step_id, ...changes }) =>
      answer(
        ctx,
        async () => {
          const done = await ctx.services.authoring.updateBlock(ctx.scope, { flowId: flow_id, blockId: step_id, changes }, ctx.metadata);
          await settled(ctx, done.position);
          return { flow_id, step_id, warnings: await authoringWarnings(ctx, flow_id) };
        },
        stepIdHint(ctx, flow_id),
      ),
  );

  server.registerTool(
    'update_block_draft',
    {
      title: "Replace a block's prompt or code",
      description: `Replaces the draft text of a block: ${draftTexts()}. ${kindHints('editing')}`,
      inputSchema: { flow_id: flowId, step_id: stepId, content: z.string() },
      outputSchema: { flow_id: z.string(), step_id: z.string(), field: z.enum(['prompt', 'code']) },
      annotations: { ...write, idempotentHint: true },
    },
    (args) =>
      answer(
        ctx,
        async () => {
          const done = await ctx.services.authoring.updateBlockDraft(ctx.scope, { flowId: args.flow_id, blockId: args.step_id, content: args.content }, ctx.metadata);
          await settled(ctx, done.position);
          return { flow_id: args.flow_id, step_id: args.step_id, field: done.field };
        },
        stepIdHint(ctx, args.flow_id),
      ),
  );

  server.registerTool(
    'update_block_output_schema',
    {
      title: "Set a block's output schema",
      description: "Sets the JSON Schema an llm block's reply must match (structured output), or removes it (null). The reply is then an object the next block reads as {{previous_output.field}}.",
      inputSchema: { flow_id: flowId, step_id: stepId, content: z.record(z.string(), z.unknown()).nullable().describe('A JSON Schema object, or null to remove it') },
      outputSchema: { flow_id: z.string(), step_id: z.string() },
      annotations: { ...write, idempotentHint: true },
    },
    (args) =>
      answer(
        ctx,
        async () => {
          const done = await ctx.services.authoring.setBlockOutputSchema(ctx.scope, { flowId: args.flow_id, blockId: args.step_id, schema: args.content }, ctx.metadata);
          await settled(ctx, done.position);
          return { flow_id: args.flow_id, step_id: args.step_id };
        },
        stepIdHint(ctx, args.flow_id),
      ),
  );
}
