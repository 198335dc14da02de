import { runKinds } from '../../domain/execution/runKind.ts';
import { z } from 'zod';
import { verifyLog } from '../../audit/logVerification.ts';
import { exportRun } from '../../audit/runExport.ts';
import { diffFlow, listFlowVersions, listFlows } from '../../authoring/flowReading.ts';
import { deliveryHistory } from '../../audit/deliveryHistory.ts';
import { requireFlow, setProduction } from '../../authoring/flowAuthoring.ts';
import { redeliver } from '../../commands/deliveryCommands.ts';
import { getWebhookSecret, rotateWebhookSecret } from '../../commands/webhookSecretCommands.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import { deliveryStatuses } from '../../domain/webhooks/deliveryEvents.ts';
import { listDeliveriesForOperators } from '../../queries/consoleDeliveryQueries.ts';
import { listOrganizationsWithProjects } from '../../queries/organizationQueries.ts';
import { searchRuns } from '../../queries/runSearch.ts';
import { runActivity } from '../../queries/runActivity.ts';
import { activityBuckets, type ActivityBucket } from '../../queries/activitySeries.ts';
import { latestTestResults } from '../../queries/testResultQueries.ts';
import { allProjections } from '../../projections/allProjections.ts';
import { verifyReadModels } from '../../projections/readModelVerification.ts';
import { backlogStatus } from '../../queries/backlogQueries.ts';
import { listLiveProcesses } from '../../health/processReports.ts';
import { runTrace, stepTrace } from '../../testing/runTrace.ts';
import { flowCosts } from '../../queries/usageQueries.ts';
import { operatorProcedure, router, withApiErrors } from './trpc.ts';
import { backtestProcedures } from './backtestProcedures.ts';
import { retentionProcedures } from './retentionProcedures.ts';
import { scheduleProcedures } from './scheduleProcedures.ts';
import { secretProcedures } from './secretProcedures.ts';
import { assistantProcedures } from './assistantProcedures.ts';
import { approvalProcedures } from './approvalProcedures.ts';
import type { ConsoleContext } from './consoleContext.ts';
import { tracked } from '@trpc/server';
import { liveEvents } from '../../caches/liveEvents.ts';
import { organizationStream } from '../../domain/organizations/organizationEvents.ts';
import { executionStream } from '../../domain/execution/executionEvents.ts';
import { runStatuses } from '../../domain/execution/runStatus.ts';

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
      const { services } = ctx;
      return {
        projections: await services.projections.status(),
        tasks: services.tasks.status(),
        // Every live process (workers too), each from the report it writes on its runner lease.
        processes: await listLiveProcesses(services.db),
        watchdog: services.watchdog.last() ?? null,
        ...(await backlogStatus(services.db, services.commands.now())),
      };
    }),
  }),
  organizations: router({
    /** Organizations and their projects, by slug (the console's pickers). */
    list: operatorProcedure.input(z.object({ limit: z.number().int().min(1).max(1000).default(200) }).default({ limit: 200 })).query(({ ctx, input }) => listOrganizationsWithProjects(ctx.services.db, input.limit)),
  }),
  runs: router({
    list: operatorProcedure
      .input(
        z.object({
          organizationId: id.optional(),
          projectId: id.optional(),
          flowId: id.optional(),
          status: z.array(z.enum(runStatuses)).optional(),
          kind: z.enum(runKinds).optional(),
          apiKeyId: id.optional(),
          from: z.iso.datetime({ offset: true }).optional(),
          to: z.iso.datetime({ offset: true }).optional(),
          limit: z.number().int().min(1).max(200).default(50),
          cursor: z.string().max(500).optional(),
        }),
      )
      .query(({ ctx, input }) => {
        const { limit, cursor, ...filters } = input;
        return ctx.services.runs.listAll(filters, { limit, cursor });
      }),
    /** A run from the log, with its flow's name and slug from the read models (null for a flow not projected yet). */
    get: operatorProcedure.input(z.object({ executionId: id })).query(async ({ ctx, input }) => {
      const trace = await runTrace(ctx.services.eventStore, {}, input.executionId);
      const flow = await ctx.services.db.selectFrom('flows').select(['slug', 'name']).where('id', '=', trace.flowId).executeTakeFirst();
      return { ...trace, flow: flow ?? null };
    }),
    /** Runs and failed runs per flow over time (test runs left out), for the Runs view's chart. */
    activity: operatorProcedure
      .input(z.object({ organizationId: id.optional(), projectId: id.optional(), flowId: id.optional(), kind: z.enum([...runKinds, 'all']).optional(), apiKeyId: id.optional(), from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }), bucket: z.enum(Object.keys(activityBuckets) as [ActivityBucket, ...ActivityBucket[]]) }))
      .query(({ ctx, input }) => runActivity(ctx.services.db, { ...input, from: new Date(input.from), to: new Date(input.to) })),
    /** What an operator pasted: an execution id, an API key (or its id) or an Idempotency-Key a caller sent. */
    search: operatorProcedure.input(z.object({ text: z.string().max(2000) })).query(({ ctx, input }) => searchRuns(ctx.services, input.text)),
    stepTrace: operatorProcedure.input(z.object({ executionId: id, stepId: id })).query(({ ctx, input }) => stepTrace(ctx.services.eventStore, {}, input.executionId, input.stepId)),
    rerun: operatorProcedure.input(z.object({ executionId: id })).mutation(({ ctx, input }) => ctx.services.runs.rerun(input.executionId, ctx.metadata)),
    /** Erases an ended run's personal data (docs/operations.md): recorded with the operator's name and reason. */
    eraseData: operatorProcedure
      .input(z.object({ executionId: id, reason: z.string().min(1).max(1000) }))
      .mutation(({ ctx, input }) => ctx.services.runs.eraseData({ executionId: input.executionId, reason: input.reason }, ctx.metadata)),
    /** Ends a /jobs run that has not finished, or any paused run: `failed` with reason `cancelled`. */
    cancel: operatorProcedure.input(z.object({ executionId: id, reason: z.string().max(1000).optional() })).mutation(async ({ ctx, input }) => {
      const { position: _position, ...done } = await ctx.services.runs.cancel(input, ctx.metadata);
      return done;
    }),
  }),
  flows: router({
    list: operatorProcedure.input(z.object({ projectId: id })).query(({ ctx, input }) => listFlows(ctx.services.db, {}, input.projectId)),
    /** Each flow's cost over the last 30 days, by flow id (US dollars, as recorded). */
    costs: operatorProcedure.input(z.object({ projectId: id })).query(({ ctx, input }) => flowCosts(ctx.services.db, input.projectId, new Date(Date.now() - 30 * 86_400_000))),
    versions: operatorProcedure.input(z.object({ flowId: id })).query(({ ctx, input }) => listFlowVersions(ctx.services.commands, {}, input.flowId)),
    diff: operatorProcedure.input(z.object({ flowId: id, from: versionSide, to: versionSide })).query(({ ctx, input }) => diffFlow(ctx.services.commands, {}, input)),
    /** Production moves to a published version; the flow's test gate applies unless forced, and a forced promotion is an event of its own. */
    promote: operatorProcedure
      .input(z.object({ flowId: id, versionId: id, force: z.object({ reason: z.string().max(1000).nullable() }).optional() }))
      .mutation(async ({ ctx, input }) => {
        const { position: _position, ...done } = await setProduction({ ...ctx.services.commands, db: ctx.services.db }, {}, input, ctx.metadata);
        return done;
      }),
  }),
  /** Approval blocks' waits: the queue and the decision. */
  approvals: approvalProcedures,
  backtests: backtestProcedures,
  retention: retentionProcedures,
  schedules: scheduleProcedures,
  assistants: assistantProcedures,
  tests: router({
    results: operatorProcedure.input(z.object({ flowId: id, versionId: id.optional() })).query(async ({ ctx, input }) => {
      await requireFlow(ctx.services.commands, {}, input.flowId);
      return latestTestResults(ctx.services.db, input);
    }),
  }),
  deliveries: router({
    list: operatorProcedure
      .input(z.object({ organizationId: id.optional(), executionId: id.optional(), status: z.array(z.enum(deliveryStatuses)).optional(), limit: z.number().int().min(1).max(200).default(50), cursor: z.string().max(500).optional() }))
      .query(({ ctx, input }) => listDeliveriesForOperators(ctx.services.db, { organizationId: input.organizationId, executionId: input.executionId, statuses: input.status, limit: input.limit, cursor: input.cursor })),
    get: operatorProcedure.input(z.object({ deliveryId: id })).query(({ ctx, input }) => deliveryHistory(ctx.services.eventStore, input.deliveryId)),
    /** One more attempt of each dead-lettered or permanently failed delivery named; each answers for itself. */
    redeliver: operatorProcedure.input(z.object({ deliveryIds: z.array(id).min(1).max(100) })).mutation(async ({ ctx, input }) => {
      const results = [];
      for (const deliveryId of input.deliveryIds) {
        try {
          const { position: _position, ...done } = await redeliver(ctx.services.commands, deliveryId, ctx.metadata);
          results.push({ ...done, error: null });
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          results.push({ deliveryId, status: null, error: { code: error.code, message: error.message } });
        }
      }
      return { results };
    }),
  }),
  secrets: router({
    status: operatorProcedure.input(z.object({ organizationId: id })).query(({ ctx, input }) => getWebhookSecret(ctx.services.commands, input.organizationId, ctx.services.masterKey, ctx.metadata)),
    /** A new secret at once (the previous one also signs during the grace window); the plaintext is answered only here. */
    rotate: operatorProcedure
      .input(z.object({ organizationId: id }))
      .mutation(({ ctx, input }) => rotateWebhookSecret(ctx.services.commands, input.organizationId, ctx.services.masterKey, ctx.services.secretGraceSeconds, ctx.metadata)),
  }),
  /** The organization's secrets for http requests (`{{secrets.<name>}}`); `secrets` above is the webhook signing secret. */
  organizationSecrets: secretProcedures,
  projections: router({
    verify: operatorProcedure.mutation(async ({ ctx }) => {
      const { services } = ctx;
      const result = await verifyReadModels({ db: services.db, eventStore: services.eventStore, projections: allProjections, logger: services.logger, databaseUrl: services.databaseUrl });
      return { ok: result.ok, at: result.at, tables: result.tables.map(({ table, liveRows, shadowRows, liveHash, shadowHash, onlyLive, onlyShadow }) => ({ table, liveRows, shadowRows, same: liveHash === shadowHash, onlyLive, onlyShadow })) };
    }),
  }),
  events: router({
    /**
     * The log's events as they are appended (SSE), from `from` (a log position, exclusive; default:
     * now), filtered by organization or run. Each event's id is its position: a client that
     * reconnects sends it back as `lastEventId` and resumes right after it.
     */
    live: operatorProcedure
      .input(z.object({ from: z.number().int().min(0).optional(), lastEventId: z.string().regex(/^\d{1,15}$/).nullish(), organizationId: id.optional(), executionId: id.optional() }))
      .subscription(({ ctx, input, signal }) => withApiErrors(liveRunEvents(ctx, input, signal))),
  }),
  audit: router({
    exportRun: operatorProcedure.input(z.object({ executionId: id })).query(async ({ ctx, input }) => ({ executionId: input.executionId, lines: await exportRun(ctx.services, input.executionId) })),
    verifyLog: operatorProcedure.input(z.object({ streamId: id.optional() })).mutation(({ ctx, input }) => verifyLog(ctx.services.eventStore, { streamId: input.streamId })),
  }),
});

export type ConsoleRouter = typeof consoleRouter;

/** How long a live event waits for the read models to hold it before it is sent anyway. */
const LIVE_READ_MODEL_WAIT_MS = 2000;

/** `events.live`: checks the filters' ids, holds one of the listener's live places, then streams. */
async function* liveRunEvents(ctx: ConsoleContext, input: { from?: number | undefined; lastEventId?: string | null | undefined; organizationId?: string | undefined; executionId?: string | undefined }, signal: AbortSignal | undefined) {
  const { eventStore, db } = ctx.services;
  if (input.organizationId && !(await eventStore.streamExists(organizationStream(input.organizationId)))) throw new ApiError('NOT_FOUND', `No organization ${input.organizationId}`);
  if (input.executionId && !(await eventStore.streamExists(executionStream(input.executionId)))) throw new ApiError('EXECUTION_NOT_FOUND', 'No such execution');
  if (!ctx.live.enter()) throw new ApiError('RATE_LIMITED', 'Too many live event streams are open on this console; close one and retry');
  try {
    const from = input.lastEventId ? Number(input.lastEventId) : (input.from ?? (await eventStore.headPosition()));
    // The page refetches its listings when an event comes: sent once the read models hold it (or
    // after LIVE_READ_MODEL_WAIT_MS, so a stalled projection never stops the stream), it never
    // refetches a listing just before the event reached it and then waits for an event that never comes.
    const readModelsAt = (position: number) => ctx.services.projections.waitForPosition(position, LIVE_READ_MODEL_WAIT_MS).catch(() => undefined);
    for await (const event of liveEvents({ eventStore, db, readModelsAt }, from, input, signal ?? new AbortController().signal)) yield tracked(String(event.position), event);
  } finally {
    ctx.live.leave();
  }
}
