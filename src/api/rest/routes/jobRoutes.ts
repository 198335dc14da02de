import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { type WebhookEventName, webhookEvents } from '../../../domain/execution/executionEvents.ts';
import type { JobView } from '../../../domain/execution/jobView.ts';
import { checkAttachments } from '../../../execution/attachmentGate.ts';
import { readRunHistory } from '../../../execution/runHistoryOf.ts';
import { jobViewOfRow } from '../../../projections/readModels/jobsProjection.ts';
import { countBlocks } from '../../../domain/flows/flowDefinition.ts';
import { acceptJob } from '../../../execution/flowEngine.ts';
import { cancelRun } from '../../../execution/cancelRun.ts';
import { describeIssues } from '../../../domain/validation/issuePath.ts';
import { BlockedAddressError } from '../../../outbound/addressGuard.ts';
import type { Runtime } from '../../../runtime/runtime.ts';
import type { StoredResponse } from '../../../domain/idempotency/idempotencyKey.ts';
import { type ExecuteBody, executeBodySchema, parseExecuteBody } from '../executionCall.ts';
import { answerIdempotently } from '../idempotentAnswer.ts';
import { requestOrigin } from '../requestTracing.ts';
import { documented, flowParams, idempotentHeaders, runHeaders } from '../openapi/routeDocs.ts';
import { jobAcceptedSchema, jobSchema } from '../openapi/responseSchemas.ts';

const jobPath = flowParams.extend({ executionId: z.string() });
const cancelBody = z.strictObject({ reason: z.string().min(1).max(500).optional().meta({ description: 'Recorded with the cancellation' }) });

/** callbackUrl: HTTPS, resolving to public addresses only (through the outbound guard); callbackEvents: a non-empty subset. */
async function checkCallback(runtime: Runtime, body: ExecuteBody): Promise<{ url: string; events: WebhookEventName[] } | null> {
  if (body.callbackUrl === undefined) {
    if (body.callbackEvents !== undefined) throw new ApiError('CALLBACK_EVENTS_INVALID', 'callbackEvents needs a callbackUrl');
    return null;
  }
  const url = body.callbackUrl;
  if (typeof url !== 'string' || url.length > 2048 || !URL.canParse(url) || new URL(url).protocol !== 'https:') {
    throw new ApiError('CALLBACK_URL_INVALID', 'callbackUrl must be an https URL of at most 2048 characters');
  }
  try {
    await runtime.execution.guard.check(url);
  } catch (error) {
    if (error instanceof BlockedAddressError) throw new ApiError('CALLBACK_URL_INVALID', `callbackUrl: host not allowed (${error.message})`);
    throw error;
  }
  const events = body.callbackEvents ?? [...webhookEvents];
  if (!Array.isArray(events) || events.length === 0 || events.some((e) => !(webhookEvents as readonly unknown[]).includes(e)) || new Set(events).size !== events.length) {
    throw new ApiError('CALLBACK_EVENTS_INVALID', `callbackEvents must be a non-empty subset of ${webhookEvents.join(', ')}`);
  }
  return { url, events: events as WebhookEventName[] };
}

/** A job's state from its own stream (the run history's job view, which the projection evolves its rows with): the answer while the read model has not caught up. */
async function jobFromStream(runtime: Runtime, executionId: string, flowId: string) {
  const view = (await readRunHistory(runtime.eventStore, executionId)).history.job;
  if (!view || view.flowId !== flowId) return undefined;
  return presentJob(view);
}

/** The poll's answer: `result` only when completed, the failure's fields only when failed. */
export function presentJob(view: JobView) {
  const { executionId, flowId, status, createdAt, startedAt, completedAt, durationMs } = view;
  return {
    executionId,
    flowId,
    status,
    createdAt,
    startedAt,
    completedAt,
    durationMs,
    ...(status === 'completed' ? { result: view.result } : {}),
    ...(status === 'failed' ? { failureReason: view.failureReason, errorCode: view.errorCode, errorMessage: view.errorMessage } : {}),
  };
}

/** Every check of a /jobs call, then the job's first event: the 202 answer. */
async function startJob(runtime: Runtime, request: FastifyRequest): Promise<StoredResponse> {
  const body = parseExecuteBody(request.body);
  if (body.tools !== undefined || body.toolChoice !== undefined) {
    throw new ApiError('TOOLS_REQUIRE_SYNC_EXECUTE', 'tools need a caller to answer tool calls: use /execute (or /step), not /jobs');
  }
  if (body.executionId !== undefined || body.pausedAtStep !== undefined || body.toolCallMessages !== undefined) {
    throw new ApiError('INVALID_RESUME', 'jobs are never paused, so there is nothing to resume: use /execute (or /step)');
  }
  const callback = await checkCallback(runtime, body);
  if (body.message === undefined) throw new ApiError('REQUEST_INVALID', 'message: required', { problems: ['message: required'] });
  const apiKey = request.apiKey!;
  const flow = await runtime.flows.findExecutableFlow(flowParams.parse(request.params), apiKey.projectId);
  const attachments = body.attachments ?? [];
  await checkAttachments(attachments, flow.steps, { guard: runtime.execution.guard, registry: runtime.execution.registry, defaultModel: runtime.config.execution.defaultModel });
  const executionId = randomUUID();
  await acceptJob(runtime.execution, {
    executionId,
    ...flow,
    message: body.message,
    parameters: body.parameters ?? {},
    attachments,
    tools: undefined,
    mode: 'async',
    apiKeyId: apiKey.keyId,
    principal: { kind: 'apiKey', id: apiKey.keyId },
    ...requestOrigin(request),
    callback,
  });
  return { status: 202, body: { executionId, status: 'started', flowId: flow.flowId, blockCount: countBlocks(flow.steps) } };
}

export function jobRoutes(runtime: Runtime) {
  return async (app: FastifyInstance) => {
    const start = documented(
      {
        summary: 'Accept a run to be done in the background; poll it, or get a signed webhook when it ends',
        description: '`callbackUrl` (https) and `callbackEvents` (a subset of `flow.completed`, `flow.failed`; both by default) subscribe to its end.',
        tags: ['Jobs'],
        params: flowParams,
        headers: idempotentHeaders,
        body: executeBodySchema,
        response: { 202: jobAcceptedSchema },
      },
      ['apiKey'],
    );
    app.post('/seq/:org/:project/:flow/jobs', { schema: start }, async (request, reply) => answerIdempotently(runtime, request, reply, 'jobs', () => startJob(runtime, request)));

    const cancel = documented(
      { summary: 'Cancel a job that has not ended: it fails with reason `cancelled` (and `flow.failed` is sent)', tags: ['Jobs'], params: jobPath, headers: runHeaders, body: cancelBody.optional(), response: { 200: jobSchema } },
      ['apiKey'],
    );

    app.post('/seq/:org/:project/:flow/jobs/:executionId/cancel', { schema: cancel }, async (request) => {
      const params = jobPath.parse(request.params);
      const apiKey = request.apiKey!;
      const parsed = cancelBody.safeParse(request.body ?? {});
      if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `Invalid body: ${describeIssues(parsed.error.issues).join('; ')}`);
      const flow = await runtime.flows.findFlowForCaller(params, apiKey.projectId);
      await cancelRun(runtime.commands, { executionId: params.executionId, reason: parsed.data.reason, jobOf: flow.flowId }, { principal: { kind: 'apiKey', id: apiKey.keyId }, ...requestOrigin(request) });
      return (await jobFromStream(runtime, params.executionId, flow.flowId))!;
    });

    const poll = documented({ summary: "A job's status, and its result once completed", tags: ['Jobs'], params: jobPath, response: { 200: jobSchema } }, ['apiKey']);
    app.get('/seq/:org/:project/:flow/jobs/:executionId', { schema: poll }, async (request) => {
      const params = jobPath.parse(request.params);
      const flow = await runtime.flows.findFlowForCaller(params, request.apiKey!.projectId);
      const row = await runtime.db.selectFrom('jobs').selectAll().where('execution_id', '=', params.executionId).where('flow_id', '=', flow.flowId).executeTakeFirst();
      if (!row || row.status === 'started') {
        // Not projected yet (or maybe just claimed): the run's own stream answers, so a poll right after POST never 404s.
        const view = await jobFromStream(runtime, params.executionId, flow.flowId);
        if (!view) throw new ApiError('EXECUTION_NOT_FOUND', `No job ${params.executionId} of flow '${params.flow}'`);
        return view;
      }
      return presentJob(jobViewOfRow(row));
    });
  };
}
