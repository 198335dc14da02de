import { z } from 'zod';
import { ApiError } from '../../../domain/errors/apiError.ts';
import type { ToolContext } from '../toolContext.ts';

/** A version named either way: its version_id (as publish_version answered it) or its number. */
export const versionRef = z.union([z.string().min(1), z.number().int().min(1)]);

/** The version a reference names, in the flow's own versions: its id and number, or VERSION_NOT_FOUND. */
export async function resolveVersion(ctx: ToolContext, flowId: string, ref: string | number): Promise<{ versionId: string; number: number }> {
  const flow = await ctx.services.authoring.requireFlow(ctx.scope, flowId);
  const version = flow.versions.find((v) => (typeof ref === 'number' ? v.number === ref : v.versionId === ref));
  if (!version) throw new ApiError('VERSION_NOT_FOUND', `Flow ${flowId} has no version ${ref}`);
  return { versionId: version.versionId, number: version.number };
}
