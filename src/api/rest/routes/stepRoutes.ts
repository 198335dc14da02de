import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { executionStream } from '../../../domain/execution/executionEvents.ts';
import { countBlocks } from '../../../domain/flows/flowDefinition.ts';
import { decodeRecorded } from '../../../eventstore/decodeRecorded.ts';
import type { Runtime } from '../../../runtime/runtime.ts';
import { streamExecution } from '../executionEventStream.ts';
import { executeBodySchema, parseExecuteBody, prepareCall } from '../executionCall.ts';
import { requestOrigin } from '../requestTracing.ts';
import { documented, eventStream, flowParams, runHeaders } from '../openapi/routeDocs.ts';

const executionPath = flowParams.extend({ executionId: z.string() });
const STEP_EVENTS = 'Events: `started`, `step_started`, `step_completed`, `step_paused_for_tool_calls`, `resumed`, `completed`, `failed`; each `data` is a JSON object (the `StepEvent` schema, by event name) and each `id` the event\'s position in the run (send it back as `Last-Event-ID` to resume the stream).';

/**
 * `POST /seq/{org}/{project}/{flow}/step` (same body as /execute, fresh or resume): every check first,
 * answered as JSON errors; then the run starts on its own and its events stream as SSE.
 * `GET /seq/{org}/{project}/{flow}/step/{executionId}` with `Last-Event-ID` (or `?lastEventId=`):
 * the events after that id from the log, then the live ones.
 */
export function stepRoutes(runtime: Runtime) {
  return async (app: FastifyInstance) => {
    const start = documented(
      { summary: 'Run (or resume) the production version, streaming its steps as server-sent events', tags: ['Runs'], params: flowParams, headers: runHeaders, body: executeBodySchema, response: { 200: eventStream(STEP_EVENTS) } },
      ['apiKey'],
    );
    app.post('/seq/:org/:project/:flow/step', { schema: start }, async (request, reply) => {
      const body = parseExecuteBody(request.body);
      const { flow, run } = await prepareCall(runtime, { apiKey: request.apiKey!, ...requestOrigin(request) }, flowParams.parse(request.params), body, 'step');
      // The run belongs to the service, not to this connection: it finishes and is recorded even if the client leaves.
      const outcome = run.start();
      runtime.runs.follow(run.executionId, outcome);
      outcome.catch((error: unknown) => request.log.error({ err: error, executionId: run.executionId }, 'step-through run failed'));
      // Nothing is streamed until the run has its first event: a run that cannot even start answers JSON.
      await run.started;
      await streamExecution(runtime, request, reply, { executionId: run.executionId, afterRevision: run.afterRevision, flowId: flow.flowId, blockCount: countBlocks(flow.steps), outcome });
    });

    const follow = documented(
      {
        summary: "A run's events again: those after `Last-Event-ID` from the log, then the live ones",
        tags: ['Runs'],
        params: executionPath,
        headers: runHeaders.extend({ 'last-event-id': z.string().optional().meta({ description: 'The id of the last event received' }) }),
        querystring: z.object({ lastEventId: z.string().optional().meta({ description: 'As the Last-Event-ID header, for clients that cannot send it' }) }),
        response: { 200: eventStream(STEP_EVENTS) },
      },
      ['apiKey'],
    );
    app.get('/seq/:org/:project/:flow/step/:executionId', { schema: follow }, async (request, reply) => {
      const params = executionPath.parse(request.params);
      const flow = await runtime.flows.findExecutableFlow(params, request.apiKey!.projectId);
      const [first] = await runtime.eventStore.readStream(executionStream(params.executionId), { maxCount: 1 });
      const requested = first ? decodeRecorded(first) : undefined;
      if (requested?.type !== 'ExecutionRequested' || requested.data.flowId !== flow.flowId) throw new ApiError('EXECUTION_NOT_FOUND', `No run ${params.executionId} of flow '${params.flow}'`);
      const lastEventId = request.headers['last-event-id'] ?? (request.query as { lastEventId?: string }).lastEventId;
      const afterRevision = lastEventId === undefined ? -1 : Number(lastEventId);
      if (!Number.isInteger(afterRevision) || afterRevision < -1) throw new ApiError('REQUEST_INVALID', 'Last-Event-ID must be an event id of this stream');
      await streamExecution(runtime, request, reply, { executionId: params.executionId, afterRevision, flowId: flow.flowId, blockCount: requested.data.blockCount });
    });
  };
}
