import { z } from 'zod';
import { changeSchedule } from '../../schedules/scheduleCommands.ts';
import { listSchedules } from '../../queries/scheduleQueries.ts';
import { operatorProcedure, router } from './trpc.ts';

const id = z.string().min(1).max(200);

/**
 * A flow's schedules in the console (docs/flows.md#schedules): listed with their next and last
 * firing, and paused, resumed or removed as `seqflow schedule pause|resume|remove` does (recorded
 * with the operator as principal). Adding one takes an input file: `seqflow schedule add`.
 */
export const scheduleProcedures = router({
  list: operatorProcedure.input(z.object({ flowId: id })).query(({ ctx, input }) => listSchedules(ctx.services.db, { flowId: input.flowId })),
  change: operatorProcedure
    .input(z.object({ scheduleId: id, change: z.enum(['pause', 'resume', 'remove']) }))
    .mutation(async ({ ctx, input }) => {
      const { position: _position, ...changed } = await changeSchedule(ctx.services, input.scheduleId, input.change, ctx.metadata);
      return changed;
    }),
});
