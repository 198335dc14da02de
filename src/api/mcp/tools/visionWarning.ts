import { blockKinds } from '../../../domain/blocks/blockKinds.ts';
import { draftWarnings } from '../../../domain/flows/draftWarnings.ts';
import type { ToolContext } from '../toolContext.ts';

/**
 * Warnings when a flow that receives images (some run or test case carried attachments) has an llm
 * block whose model (or the default model) takes no images: such runs would be refused with
 * MODEL_MIME_INCOMPATIBLE before any work.
 */
export async function visionWarnings(ctx: ToolContext, flowId: string): Promise<string[]> {
  if (!(await ctx.services.authoring.flowReceivesImages(flowId))) return [];
  const defaultModel = ctx.services.models.defaultModel;
  const draft = await ctx.services.authoring.showDraft(ctx.scope, flowId);
  return draft.blocks
    // Blocks of the kinds that call a model.
    .filter((b) => blockKinds[b.processor_type].fields.includes('model') && ctx.services.models.registry.imageMimeTypes(b.model ?? defaultModel).length === 0)
    .map((b) => `This flow receives images, but block '${b.name}' (${b.step_id}) uses ${b.model ?? `the default model ${defaultModel}`}, which takes no images: set a vision-capable model with update_block.`);
}

/** Every warning an authoring tool answers with: the draft's own (placeholders, prompts, models) and the vision ones. */
export async function authoringWarnings(ctx: ToolContext, flowId: string): Promise<string[]> {
  const draft = await ctx.services.authoring.showDraft(ctx.scope, flowId);
  return [...draftWarnings(draft.blocks, ctx.services.models.registry.knows), ...(await visionWarnings(ctx, flowId))];
}
