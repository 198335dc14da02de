import type { ToolContext } from '../toolContext.ts';

/** For an unknown or misplaced step id: the flow's valid step ids, with names, so the model can pick one. */
export function stepIdHint(ctx: ToolContext, flowId: string) {
  return async (code: string) => {
    if (code !== 'BLOCK_NOT_FOUND' && code !== 'PLACEMENT_INVALID') return undefined;
    const draft = await ctx.services.authoring.showDraft(ctx.scope, flowId);
    if (draft.blocks.length === 0) return 'The flow has no blocks yet: add the first one without target_id.';
    return `Valid step_ids of this flow: ${draft.blocks.map((b) => `${b.step_id} (${b.name})`).join(', ')}.`;
  };
}
