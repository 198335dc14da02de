import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { processorTypes } from '../../../domain/blocks/blockKinds.ts';
import { stepKinds } from '../../../domain/flows/flowDefinition.ts';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { type ToolContext, answer } from '../toolContext.ts';
import { flowId, stepId } from './authoringShapes.ts';
import { stepIdHint } from './stepIdHint.ts';

/** Reading one draft block whole: hydrate_project shows only an excerpt of each prompt, and no code or schema. */
export function registerBlockReadingTools(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    'get_block',
    {
      title: 'Read a block',
      description: "One block of the flow's draft in full: its prompt, code, output schema, model and processor_config, and where it stands. Read it before you rewrite a prompt or code.",
      inputSchema: { flow_id: flowId, step_id: stepId },
      outputSchema: {
        flow_id: z.string(),
        step_id: z.string(),
        name: z.string(),
        processor_type: z.enum(processorTypes),
        position: z.object({ step_index: z.number().int(), index_in_step: z.number().int(), step_kind: z.enum(stepKinds), loop_over: z.string().optional() }),
        model: z.string().nullable().describe("null: the service's default model"),
        prompt: z.string().nullable(),
        code: z.string().nullable(),
        output_schema: z.record(z.string(), z.unknown()).nullable(),
        processor_config: z.record(z.string(), z.unknown()),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ flow_id, step_id }) =>
      answer(
        ctx,
        async () => {
          const draft = await ctx.services.authoring.showDraft(ctx.scope, flow_id);
          const block = draft.blocks.find((b) => b.step_id === step_id);
          if (!block) throw new ApiError('BLOCK_NOT_FOUND', `Flow ${flow_id} has no block ${step_id} in its draft`);
          const { position, output_schema, ...rest } = block;
          return {
            flow_id,
            ...rest,
            output_schema: (output_schema as Record<string, unknown> | null) ?? null,
            position: { step_index: position.stepIndex, index_in_step: position.indexInStep, step_kind: position.stepKind, ...(position.loopOver ? { loop_over: position.loopOver } : {}) },
          };
        },
        stepIdHint(ctx, flow_id),
      ),
  );
}
