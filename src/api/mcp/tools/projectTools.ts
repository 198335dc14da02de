import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { processorTypes } from '../../../domain/blocks/blockKinds.ts';
import { stepKinds } from '../../../domain/flows/flowDefinition.ts';
import { z } from 'zod';
import { type ToolContext, answer } from '../toolContext.ts';

const block = z.object({
  step_id: z.string(),
  name: z.string(),
  processor_type: z.enum(processorTypes),
  model: z.string().nullable(),
  position: z.object({ step_index: z.number().int(), index_in_step: z.number().int(), step_kind: z.enum(stepKinds), loop_over: z.string().optional() }),
  prompt_excerpt: z.string().optional(),
});
const flow = z.object({
  flow_id: z.string(),
  slug: z.string(),
  name: z.string(),
  draft_status: z.enum(['empty', 'unpublished', 'changed', 'published']),
  production_version_id: z.string().nullable(),
  production_version_number: z.number().int().nullable(),
  receives_images: z.boolean(),
  blocks: z.array(block),
  versions: z.array(z.object({ version_id: z.string(), number: z.number().int(), note: z.string().nullable(), published_at: z.string() })),
  test_cases: z.array(z.object({ test_case_id: z.string(), name: z.string() })),
});

export function registerProjectTools(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    'list_projects',
    {
      title: 'List your projects',
      description: 'Start here when you have no project_id: every project of your organizations, with its id and slugs. Then call hydrate_project with a project_id.',
      inputSchema: {},
      outputSchema: {
        projects: z.array(
          z.object({ project_id: z.string(), slug: z.string(), name: z.string(), organization_id: z.string(), organization_slug: z.string(), organization_name: z.string() }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => answer(ctx, async () => ({ projects: await ctx.services.authoring.listProjects(ctx.scope) })),
  );
  server.registerTool(
    'hydrate_project',
    {
      title: 'Map a project',
      description:
        "Map a project (call list_projects first if you have no project_id). The project, each flow with its draft blocks (step_id, name, type, model, position, prompt excerpt), draft status against the latest version, versions and production version, test cases, the retention period of its runs, and the models the service knows (vision: takes images).",
      inputSchema: { project_id: z.string().min(1).describe('The project_id from list_projects, or "organization-slug/project-slug"') },
      outputSchema: {
        project_id: z.string(),
        organization_id: z.string(),
        slug: z.string(),
        name: z.string(),
        retention: z.object({ run_days: z.number().int().nullable(), set_on: z.enum(['project', 'organization']).nullable() }).describe("Days after a run ends that its personal data is kept (null: kept); set on the project, or its organization's"),
        flows: z.array(flow),
        models: z.array(z.object({ id: z.string(), vision: z.boolean() })),
        default_model: z.string(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(ctx, async () => ({
        ...(await ctx.services.authoring.projectMap(ctx.scope, args.project_id)),
        models: ctx.services.models.registry.list(),
        default_model: ctx.services.models.defaultModel,
      })),
  );
}
