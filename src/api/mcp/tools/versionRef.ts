import { z } from 'zod';
import { ApiError } from '../../../domain/errors/apiError.ts';
import type { ToolContext } from '../toolContext.ts';

/** A version named either way: its version_id (as publish_version answered it) or its number. */
export const versionRef = z.union([z.string().min(1), z.number().int().min(1)]);

/** The version a reference names, in the flow's own versions: its id and number, or VERSION_NOT_FOUND. */
export async function resolveVersion(ctx: ToolContext, flowId: string, ref: string | number): Promise<{ versionId: string; number: number }> {
  const flow = await ctx.services.authoring.requireFlow(ctx.scope, flowId);
  // A number sent as a string ("1") is that number: version ids are UUIDs, never digits alone.
  const number = typeof ref === 'number' ? ref : /^\d+$/.test(ref) ? Number(ref) : undefined;
  const version = flow.versions.find((v) => (number !== undefined ? v.number === number : v.versionId === ref));
  if (!version) throw new ApiError('VERSION_NOT_FOUND', `Flow ${flowId} has no version ${ref} (its versions: ${flow.versions.map((v) => v.number).join(', ') || 'none yet: publish_version first'})`);
  return { versionId: version.versionId, number: version.number };
}
