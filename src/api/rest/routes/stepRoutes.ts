import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { executionStream } from '../../../domain/execution/executionEvents.ts';
import { countBlocks } from '../../../domain/flows/flowDefinition.ts';
import { decodeRecorded } from '../../../eventstore/decodeRecorded.ts';
import type { Runtime } from '../../../runtime/runtime.ts';
import { streamExecution } from '../executionEventStream.ts';
import { parseExecuteBody, prepareCall } from '../executionCall.ts';
import { requestOrigin } from '../requestTracing.ts';

const flowPath = z.object({ org: z.string(), project: z.string(), flow: z.string() });
const executionPath = flowPath.extend({ executionId: z.string() });

/**
 * `POST /seq/{org}/{project}/{flow}/step` (same body as /execute, fresh or resume): every check first,
 * answered as JSON errors; then the run starts on its own and its events stream as SSE.
 * `GET /seq/{org}/{project}/{flow}/step/{executionId}` with `Last-Event-ID` (or `?lastEventId=`):
 * the events after that id from the log, then the live ones.
 */
export function stepRoutes(runtime: Runtime) {
  return async (app: FastifyInstance) => {
    app.post('/seq/:org/:project/:flow/step', async (request, reply) => {
      const body = parseExecuteBody(request.body);
      const { flow, run } = await prepareCall(runtime, { apiKey: request.apiKey!, ...requestOrigin(request) }, flowPath.parse(request.params), body, 'step');
      // The run belongs to the service, not to this connection: it finishes and is recorded even if the client leaves.
      const outcome = run.start();
      runtime.runs.follow(run.executionId, outcome);
      outcome.catch((error: unknown) => request.log.error({ err: error, executionId: run.executionId }, 'step-through run failed'));
      // Nothing is streamed until the run has its first event: a run that cannot even start answers JSON.
      await run.started;
      await streamExecution(runtime, request, reply, { executionId: run.executionId, afterRevision: run.afterRevision, flowId: flow.flowId, blockCount: countBlocks(flow.steps), outcome });
    });

    app.get('/seq/:org/:project/:flow/step/:executionId', async (request, reply) => {
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
