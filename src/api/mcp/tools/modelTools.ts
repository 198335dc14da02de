import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { PROVIDERS } from '../../../domain/models/modelRoute.ts';
import { type ToolContext, answer } from '../toolContext.ts';

/** `list_models`: the model catalog, for an assistant choosing a block's model. */
export function registerModelTools(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    'list_models',
    {
      title: 'List the models',
      description:
        "The models this service knows, for a block's model: each with its provider (name a model as provider:model to choose one, e.g. anthropic:claude-haiku-4-5), whether the service has an account with that provider (configured), the image types it reads, whether it calls tools and writes structured output, its context window, and its price in US dollars per million input and output tokens (null: unknown).",
      inputSchema: {},
      outputSchema: {
        default_model: z.string(),
        models: z.array(
          z.object({
            model: z.string(),
            provider: z.enum(PROVIDERS),
            configured: z.boolean(),
            image_mime_types: z.array(z.string()),
            tools: z.boolean(),
            structured_output: z.boolean(),
            context_window: z.number().int().nullable(),
            input_usd_per_mtok: z.number().nullable(),
            output_usd_per_mtok: z.number().nullable(),
          }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      answer(ctx, async () => ({
        default_model: ctx.services.models.defaultModel,
        models: ctx.services.models.registry.catalog().map((m) => ({
          model: m.model,
          provider: m.provider,
          configured: ctx.services.models.configured.includes(m.provider),
          image_mime_types: m.imageMimeTypes,
          tools: m.tools,
          structured_output: m.structuredOutput,
          context_window: m.contextWindow,
          input_usd_per_mtok: m.inputUsdPerMTok,
          output_usd_per_mtok: m.outputUsdPerMTok,
        })),
      })),
  );
}
