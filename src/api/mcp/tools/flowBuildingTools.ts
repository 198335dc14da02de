import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { processorTypes } from '../../../domain/blocks/blockKinds.ts';
import { z } from 'zod';
import { type ToolContext, answer, settled } from '../toolContext.ts';
import { kindHints, edited, flowId, stepId, write } from './authoringShapes.ts';
import { stepIdHint } from './stepIdHint.ts';
import { authoringWarnings } from './visionWarning.ts';

/** Creating a flow and adding or removing its blocks: each change one event. */
export function registerFlowBuildingTools(server: McpServer, ctx: ToolContext) {

  server.registerTool(
    'create_flow',
    {
      title: 'Create a flow',
      description: 'Creates an empty flow (a draft with no blocks) in a project. The slug names it in the execution URL.',
      inputSchema: { project_id: z.string().min(1).describe('The project: its id, or organization-slug/project-slug (as list_projects shows them)'), name: z.string().min(1).max(200), slug: z.string().min(1).max(100) },
      outputSchema: { flow_id: z.string(), project_id: z.string(), slug: z.string(), name: z.string() },
      annotations: { ...write, idempotentHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const projectId = await ctx.services.authoring.resolveProject(ctx.scope, args.project_id);
        const created = await ctx.services.authoring.createFlow(ctx.scope, { projectId, name: args.name, slug: args.slug }, ctx.metadata);
        await settled(ctx, created.position);
        return { flow_id: created.flowId, project_id: projectId, slug: created.slug, name: args.name };
      }),
  );

  server.registerTool(
    'add_block',
    {
      title: 'Add a block',
      description:
        `Adds a block to the flow's draft. The first block needs no target_id; then direction 'right' places it in a new step after the target's step, 'bottom' runs it in parallel with the target. ${kindHints('adding')}`,
      inputSchema: {
        flow_id: flowId,
        name: z.string().min(1).max(100),
        processor_type: z.enum(processorTypes),
        prompt: z.string().optional(),
        target_id: z.string().min(1).optional().describe('The step_id the new block is placed against'),
        direction: z.enum(['right', 'bottom']).optional().describe("'right' (default): a new step after the target's; 'bottom': a parallel sibling"),
        model: z.string().min(1).optional(),
        code: z.string().optional(),
        output_schema: z.record(z.string(), z.unknown()).optional().describe('An llm block\'s reply as this JSON Schema (type object)'),
        processor_config: z.record(z.string(), z.unknown()).optional().describe('As update_block takes it: model settings, tools_enabled, max_tool_iterations, fallback_models...'),
      },
      outputSchema: edited,
      annotations: { ...write, idempotentHint: false },
    },
    (args) =>
      answer(
        ctx,
        async () => {
          const added = await ctx.services.authoring.addBlock(
            ctx.scope,
            {
              flowId: args.flow_id,
              name: args.name,
              processor_type: args.processor_type,
              prompt: args.prompt,
              code: args.code,
              model: args.model,
              targetId: args.target_id,
              direction: args.direction,
              ...(args.output_schema ? { output_schema: args.output_schema } : {}),
              ...(args.processor_config ? { processor_config: args.processor_config as never } : {}),
            },
            ctx.metadata,
          );
          await settled(ctx, added.position);
          return { flow_id: args.flow_id, step_id: added.blockId, warnings: await authoringWarnings(ctx, args.flow_id) };
        },
        stepIdHint(ctx, args.flow_id),
      ),
  );

  server.registerTool(
    'remove_block',
    {
      title: 'Remove a block',
      description: "Removes a block from the draft (published versions keep it). A step left empty disappears.",
      inputSchema: { flow_id: flowId, step_id: stepId },
      outputSchema: { flow_id: z.string(), step_id: z.string(), removed: z.boolean() },
      annotations: { ...write, destructiveHint: true, idempotentHint: false },
    },
    (args) =>
      answer(
        ctx,
        async () => {
          const done = await ctx.services.authoring.removeBlock(ctx.scope, { flowId: args.flow_id, blockId: args.step_id }, ctx.metadata);
          await settled(ctx, done.position);
          return { flow_id: args.flow_id, step_id: args.step_id, removed: true };
        },
        stepIdHint(ctx, args.flow_id),
      ),
  );
}
