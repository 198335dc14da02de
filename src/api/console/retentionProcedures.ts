import { z } from 'zod';
import { ApiError } from '../../domain/errors/apiError.ts';
import { MAX_RETENTION_DAYS } from '../../domain/retention/retentionEvents.ts';
import { retentionOf, setRetention } from '../../retention/retentionSettings.ts';
import { operatorProcedure, router } from './trpc.ts';

const id = z.string().min(1).max(200);

/**
 * An organization's retention periods in the console (docs/operations.md): read, and set for the
 * organization (`projectId` null) or one of its projects, recorded with the operator as principal,
 * as `seqflow org|project retention` does.
 */
export const retentionProcedures = router({
  get: operatorProcedure.input(z.object({ organizationId: id })).query(({ ctx, input }) => retentionOf(ctx.services.db, input.organizationId)),
  set: operatorProcedure
    .input(z.object({ organizationId: id, projectId: id.nullable(), runDays: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable() }))
    .mutation(async ({ ctx, input }) => {
      const organization = await ctx.services.db.selectFrom('organizations').select('id').where('id', '=', input.organizationId).executeTakeFirst();
      if (!organization) throw new ApiError('ORGANIZATION_NOT_FOUND', `No organization ${input.organizationId}`);
      if (input.projectId !== null) {
        const project = await ctx.services.db.selectFrom('projects').select('id').where('id', '=', input.projectId).where('organization_id', '=', input.organizationId).executeTakeFirst();
        if (!project) throw new ApiError('PROJECT_NOT_FOUND', `No project ${input.projectId} in organization ${input.organizationId}`);
      }
      return setRetention(ctx.services.commands, input, ctx.metadata);
    }),
});
