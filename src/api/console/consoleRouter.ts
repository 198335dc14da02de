import { z } from 'zod';
import { verifyLog } from '../../audit/logVerification.ts';
import { exportRun } from '../../audit/runExport.ts';
import { rerunExecution } from '../../audit/runRerun.ts';
import { diffFlow, listFlowVersions, listFlows } from '../../authoring/flowReading.ts';
import { getWebhookSecret } from '../../commands/webhookSecretCommands.ts';
import { allProjections } from '../../projections/allProjections.ts';
import { verifyReadModels } from '../../projections/readModelVerification.ts';
import { backlogStatus } from '../../queries/backlogQueries.ts';
import { runTrace, stepTrace } from '../../testing/runTrace.ts';
import { operatorProcedure, router } from './trpc.ts';

const id = z.string().min(1).max(200);
const versionSide = z.union([z.number().int().min(1), z.literal('draft')]);

/**
 * The operator console's procedures (`/internal/trpc`): thin adapters over the services below
 * src/api, with the REST API's input names. The console sees every organization (scope `{}`); every
 * id is still checked, and an unknown one answers NOT_FOUND. Every change is an event whose
 * principal is the operator.
 */
export const consoleRouter = router({
  system: router({
    status: operatorProcedure.query(async ({ ctx }) => {
      const { runtime } = ctx;
      return {
        projections: await runtime.projections.status(),
        tasks: runtime.supervisor.status(),
        ...(await backlogStatus(runtime.db, runtime.commands.now())),
      };
    }),
  }),
  runs: router({
    get: operatorProcedure.input(z.object({ executionId: id })).query(({ ctx, input }) => runTrace(ctx.runtime.eventStore, {}, input.executionId)),
    stepTrace: operatorProcedure.input(z.object({ executionId: id, stepId: id })).query(({ ctx, input }) => stepTrace(ctx.runtime.eventStore, {}, input.executionId, input.stepId)),
    rerun: operatorProcedure.input(z.object({ executionId: id })).mutation(({ ctx, input }) => rerunExecution(ctx.runtime.execution, { executionId: input.executionId }, ctx.metadata)),
  }),
  flows: router({
    list: operatorProcedure.input(z.object({ projectId: id })).query(({ ctx, input }) => listFlows(ctx.runtime.db, {}, input.projectId)),
    versions: operatorProcedure.input(z.object({ flowId: id })).query(({ ctx, input }) => listFlowVersions(ctx.runtime.commands, {}, input.flowId)),
    diff: operatorProcedure.input(z.object({ flowId: id, from: versionSide, to: versionSide })).query(({ ctx, input }) => diffFlow(ctx.runtime.commands, {}, input)),
  }),
  secrets: router({
    status: operatorProcedure.input(z.object({ organizationId: id })).query(({ ctx, input }) => getWebhookSecret(ctx.runtime.commands, input.organizationId, ctx.runtime.masterKey, ctx.metadata)),
  }),
  projections: router({
    verify: operatorProcedure.mutation(async ({ ctx }) => {
      const { runtime } = ctx;
      const result = await verifyReadModels({ db: runtime.db, eventStore: runtime.eventStore, projections: allProjections, logger: runtime.logger, databaseUrl: runtime.databaseUrl });
      return { ok: result.ok, at: result.at, tables: result.tables.map(({ table, liveRows, shadowRows, liveHash, shadowHash, onlyLive, onlyShadow }) => ({ table, liveRows, shadowRows, same: liveHash === shadowHash, onlyLive, onlyShadow })) };
    }),
  }),
  audit: router({
    exportRun: operatorProcedure.input(z.object({ executionId: id })).query(async ({ ctx, input }) => ({ executionId: input.executionId, lines: await exportRun(ctx.runtime.eventStore, input.executionId) })),
    verifyLog: operatorProcedure.input(z.object({ streamId: id.optional() })).mutation(({ ctx, input }) => verifyLog(ctx.runtime.eventStore, { streamId: input.streamId })),
  }),
});

export type ConsoleRouter = typeof consoleRouter;
