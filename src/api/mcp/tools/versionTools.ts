import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { resolveVersion, versionRef } from './versionRef.ts';
import { type ToolContext, answer, settled } from '../toolContext.ts';
import { flowId, warnings, write } from './authoringShapes.ts';
import { authoringWarnings } from './visionWarning.ts';

/** Publishing the draft as a version, promoting a version, and comparing versions. */
export function registerVersionTools(server: McpServer, ctx: ToolContext) {

  server.registerTool(
    'publish_version',
    {
      title: 'Publish the draft',
      description: 'Publishes the draft as the next immutable version. It does not go live: call set_production_version with the returned version_id for that.',
      inputSchema: { flow_id: flowId, note: z.string().max(1000).optional().describe('What changed, for the version history') },
      outputSchema: { flow_id: z.string(), version_id: z.string(), number: z.number().int(), warnings },
      annotations: { ...write, idempotentHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const published = await ctx.services.authoring.publishDraft(ctx.scope, { flowId: args.flow_id, note: args.note ?? null }, ctx.metadata);
        await settled(ctx, published.position);
        return { flow_id: args.flow_id, version_id: published.versionId, number: published.number ?? 0, warnings: await authoringWarnings(ctx, args.flow_id) };
      }),
  );

  server.registerTool(
    'validate_draft',
    {
      title: 'Check the draft without publishing',
      description: 'What publish_version would refuse now, without publishing anything: every problem, each naming its block and path (empty when the draft can be published), and the warnings of things that will go wrong at run time.',
      inputSchema: { flow_id: flowId },
      outputSchema: { flow_id: z.string(), publishable: z.boolean(), problems: z.array(z.string()), warnings },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const problems = await ctx.services.authoring.validateDraft(ctx.scope, args.flow_id);
        return { flow_id: args.flow_id, publishable: problems.length === 0, problems, warnings: await authoringWarnings(ctx, args.flow_id) };
      }),
  );

  server.registerTool(
    'set_production_version',
    {
      title: 'Promote a version to production',
      description: "Makes a published version the one the flow's execution URL runs (also a rollback). With the flow's promotion gate on, its test cases must have passed on that version.",
      inputSchema: { flow_id: flowId, version_id: versionRef.describe('The version_id publish_version answered, or the version number') },
      outputSchema: { flow_id: z.string(), version_id: z.string(), number: z.number().int() },
      annotations: { ...write, destructiveHint: true, idempotentHint: true },
    },
    (args) =>
      answer(ctx, async () => {
        // Resolved either way, so "1" is version 1 and an unknown id is named with the flow's versions.
        const version = await resolveVersion(ctx, args.flow_id, args.version_id);
        const done = await ctx.services.authoring.setProduction(ctx.scope, { flowId: args.flow_id, versionId: version.versionId }, ctx.metadata);
        await settled(ctx, done.position);
        return { flow_id: args.flow_id, version_id: version.versionId, number: done.number ?? 0 };
      }),
  );

  const side = z.union([z.number().int().min(1), z.literal('draft')]);
  server.registerTool(
    'diff_versions',
    {
      title: 'Compare versions',
      description: "What changed between two versions (by number), or between a version and the draft ('draft'): blocks added, removed, and changed field by field.",
      inputSchema: { flow_id: flowId, from: side, to: side },
      outputSchema: {
        flow_id: z.string(),
        from: side,
        to: side,
        added: z.array(z.object({ step_id: z.string(), name: z.string() })),
        removed: z.array(z.object({ step_id: z.string(), name: z.string() })),
        changed: z.array(z.object({ step_id: z.string(), name: z.string(), fields: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })) })),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const diff = await ctx.services.authoring.diffFlow(ctx.scope, { flowId: args.flow_id, from: args.from, to: args.to });
        const ids = (blocks: { blockId: string; name: string }[]) => blocks.map((b) => ({ step_id: b.blockId, name: b.name }));
        return { flow_id: args.flow_id, from: diff.from, to: diff.to, added: ids(diff.added), removed: ids(diff.removed), changed: diff.changed.map((c) => ({ step_id: c.blockId, name: c.name, fields: c.fields })) };
      }),
  );
}
