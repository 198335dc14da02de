import { z } from 'zod';
import { MAX_BACKTEST_RUNS, type BacktestSelection } from '../../domain/backtests/backtestEvents.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import { operatorProcedure, router } from './trpc.ts';

const id = z.string().min(1).max(200);

/**
 * The console's backtests of a flow: started here (they run on in this process; the panel watches
 * them fill in through the live events), listed, read a page at a time, a pair side by side; and a
 * recorded run made a test case.
 */
export const backtestProcedures = router({
  list: operatorProcedure.input(z.object({ flowId: id, limit: z.number().int().min(1).max(100).default(20) })).query(({ ctx, input }) => ctx.services.backtests.listBacktests({}, input)),
  get: operatorProcedure
    .input(z.object({ backtestId: id, cursor: z.number().int().min(0).optional(), onlyChanged: z.boolean().optional(), limit: z.number().int().min(1).max(200).default(50) }))
    .query(({ ctx, input }) => ctx.services.backtests.backtestPage({}, input)),
  pair: operatorProcedure.input(z.object({ backtestId: id, executionId: id })).query(({ ctx, input }) => ctx.services.backtests.backtestPair({}, input)),
  /** Starts a backtest and answers once its runs are chosen and recorded; the replays go on in this process. */
  start: operatorProcedure
    .input(
      z.object({
        flowId: id,
        target: z.union([z.literal('draft'), z.number().int().min(1)]),
        last: z.number().int().min(1).max(MAX_BACKTEST_RUNS).optional(),
        since: z.iso.datetime({ offset: true }).optional(),
        onlyCompleted: z.boolean().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (input.last !== undefined && input.since !== undefined) throw new ApiError('VALIDATION_FAILED', 'give last or since, not both');
      const selection: BacktestSelection = input.since ? { kind: 'window', since: input.since, until: new Date().toISOString() } : { kind: 'last', count: input.last ?? 20 };
      const target = input.target === 'draft' ? { draft: true } : { version: input.target };
      const started = await ctx.services.backtests.startBacktest({}, { flowId: input.flowId, ...target, selection, onlyCompleted: input.onlyCompleted }, ctx.metadata);
      // If this process stops first, the sweep finishes the backtest as interrupted.
      started.run().catch((error: unknown) => ctx.services.logger.warn({ err: error, backtestId: started.backtestId }, 'a backtest started in the console stopped'));
      return { backtestId: started.backtestId, total: started.total, target: started.target };
    }),
  /** A recorded run as a test case of its flow (input, tool results, an equals assertion on its result). */
  testCaseFromRun: operatorProcedure.input(z.object({ executionId: id, name: z.string().min(1).max(200).optional() })).mutation(async ({ ctx, input }) => {
    const { position: _position, ...made } = await ctx.services.backtests.testCaseFromRun({}, input, ctx.metadata);
    return made;
  }),
});
