import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { addBlock, createFlow, publishDraft, removeBlock, setBlockOutputSchema, setProduction, updateBlock, updateBlockDraft } from '../../../authoring/flowAuthoring.ts';
import { diffFlow } from '../../../authoring/flowReading.ts';
import { type ToolContext, answer, settled } from '../toolContext.ts';
import { stepIdHint } from './stepIdHint.ts';
import { visionWarnings } from './visionWarning.ts';

const flowId = z.string().min(1).describe('The flow, as hydrate_project or create_flow named it');
const stepId = z.string().min(1).describe("A block's step_id, as hydrate_project or add_block named it");
const warnings = z.array(z.string()).describe('Things that will go wrong at run time unless changed');
const edited = { flow_id: z.string(), step_id: z.string(), warnings };

/** Building a flow's draft block by block, publishing it and promoting a version: each change one event. */
export function registerAuthoringTools(server: McpServer, ctx: ToolContext) {
  const deps = ctx.services.commands;
  const write = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };

  server.registerTool(
    'create_flow',
    {
      title: 'Create a flow',
      description: 'Creates an empty flow (a draft with no blocks) in a project. The slug names it in the execution URL.',
      inputSchema: { project_id: z.string().min(1), name: z.string().min(1).max(200), slug: z.string().min(1).max(100) },
      outputSchema: { flow_id: z.string(), project_id: z.string(), slug: z.string(), name: z.string() },
      annotations: { ...write, idempotentHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const created = await createFlow(deps, ctx.scope, { projectId: args.project_id, name: args.name, slug: args.slug }, ctx.metadata);
        await settled(ctx, created.position);
        return { flow_id: created.flowId, project_id: args.project_id, slug: created.slug, name: args.name };
      }),
  );

  server.registerTool(
    'add_block',
    {
      title: 'Add a block',
      description:
        "Adds a block to the flow's draft. The first block needs no target_id; then direction 'right' places it in a new step after the target's step, 'bottom' runs it in parallel with the target. llm blocks need a prompt ({{message}}, {{parameters.x}}, {{previous_output}} placeholders); code blocks need code.",
      inputSchema: {
        flow_id: flowId,
        name: z.string().min(1).max(100),
        processor_type: z.enum(['llm', 'passthrough', 'code']),
        prompt: z.string().optional(),
        target_id: z.string().min(1).optional().describe('The step_id the new block is placed against'),
        direction: z.enum(['right', 'bottom']).optional().describe("'right' (default): a new step after the target's; 'bottom': a parallel sibling"),
        model: z.string().min(1).optional(),
        code: z.string().optional(),
      },
      outputSchema: edited,
      annotations: { ...write, idempotentHint: false },
    },
    (args) =>
      answer(
        ctx,
        async () => {
          const added = await addBlock(
            deps,
            ctx.scope,
            { flowId: args.flow_id, name: args.name, processor_type: args.processor_type, prompt: args.prompt, code: args.code, model: args.model, targetId: args.target_id, direction: args.direction },
            ctx.metadata,
          );
          await settled(ctx, added.position);
          return { flow_id: args.flow_id, step_id: added.blockId, warnings: await visionWarnings(ctx, args.flow_id) };
        },
        stepIdHint(ctx, args.flow_id),
      ),
  );

  server.registerTool(
    'update_block',
    {
      title: 'Update a block',
      description: "Changes a block's name, model (null: the service's default model), prompt, code or processor_config (e.g. {tools_enabled: true, max_tool_iterations: 5}). Fields left out stay as they are.",
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
          const done = await updateBlock(deps, ctx.scope, { flowId: flow_id, blockId: step_id, changes }, ctx.metadata);
          await settled(ctx, done.position);
          return { flow_id, step_id, warnings: await visionWarnings(ctx, flow_id) };
        },
        stepIdHint(ctx, flow_id),
      ),
  );

  server.registerTool(
    'update_block_draft',
    {
      title: "Replace a block's prompt or code",
      description: 'Replaces the draft text of a block: the prompt of an llm block, the code of a code block.',
      inputSchema: { flow_id: flowId, step_id: stepId, content: z.string() },
      outputSchema: { flow_id: z.string(), step_id: z.string(), field: z.enum(['prompt', 'code']) },
      annotations: { ...write, idempotentHint: true },
    },
    (args) =>
      answer(
        ctx,
        async () => {
          const done = await updateBlockDraft(deps, ctx.scope, { flowId: args.flow_id, blockId: args.step_id, content: args.content }, ctx.metadata);
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
          const done = await setBlockOutputSchema(deps, ctx.scope, { flowId: args.flow_id, blockId: args.step_id, schema: args.content }, ctx.metadata);
          await settled(ctx, done.position);
          return { flow_id: args.flow_id, step_id: args.step_id };
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
          const done = await removeBlock(deps, ctx.scope, { flowId: args.flow_id, blockId: args.step_id }, ctx.metadata);
          await settled(ctx, done.position);
          return { flow_id: args.flow_id, step_id: args.step_id, removed: true };
        },
        stepIdHint(ctx, args.flow_id),
      ),
  );

  server.registerTool(
    'publish_version',
    {
      title: 'Publish the draft',
      description: 'Publishes the draft as the next immutable version. It does not go live: call set_production_version with the returned version_id for that.',
      inputSchema: { flow_id: flowId, note: z.string().max(1000).optional().describe('What changed, for the version history') },
      outputSchema: { flow_id: z.string(), version_id: z.string(), number: z.number().int() },
      annotations: { ...write, idempotentHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const published = await publishDraft(deps, ctx.scope, { flowId: args.flow_id, note: args.note ?? null }, ctx.metadata);
        await settled(ctx, published.position);
        return { flow_id: args.flow_id, version_id: published.versionId, number: published.number ?? 0 };
      }),
  );

  server.registerTool(
    'set_production_version',
    {
      title: 'Promote a version to production',
      description: "Makes a published version the one the flow's execution URL runs (also a rollback). With the flow's promotion gate on, its test cases must have passed on that version.",
      inputSchema: { flow_id: flowId, version_id: z.string().min(1) },
      outputSchema: { flow_id: z.string(), version_id: z.string(), number: z.number().int() },
      annotations: { ...write, destructiveHint: true, idempotentHint: true },
    },
    (args) =>
      answer(ctx, async () => {
        const done = await setProduction({ ...deps, db: ctx.services.db }, ctx.scope, { flowId: args.flow_id, versionId: args.version_id }, ctx.metadata);
        await settled(ctx, done.position);
        return { flow_id: args.flow_id, version_id: args.version_id, number: done.number ?? 0 };
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
        const diff = await diffFlow(deps, ctx.scope, { flowId: args.flow_id, from: args.from, to: args.to });
        const ids = (blocks: { blockId: string; name: string }[]) => blocks.map((b) => ({ step_id: b.blockId, name: b.name }));
        return { flow_id: args.flow_id, from: diff.from, to: diff.to, added: ids(diff.added), removed: ids(diff.removed), changed: diff.changed.map((c) => ({ step_id: c.blockId, name: c.name, fields: c.fields })) };
      }),
  );
}
