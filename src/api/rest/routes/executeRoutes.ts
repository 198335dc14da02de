import type { FastifyInstance } from 'fastify';
import { ApiError, type ErrorCode } from '../../../domain/errors/apiError.ts';
import { countBlocks } from '../../../domain/flows/flowDefinition.ts';
import type { Runtime } from '../../../runtime/runtime.ts';
import { executeBodySchema, executeCall, parseExecuteBody } from '../executionCall.ts';
import { answerIdempotently } from '../idempotentAnswer.ts';
import { requestOrigin } from '../requestTracing.ts';
import { documented, flowParams, idempotentHeaders } from '../openapi/routeDocs.ts';
import { executeAnswerSchema } from '../openapi/responseSchemas.ts';


/** `POST /seq/{org}/{project}/{flow}/execute`: a fresh run or a resume, answered when it completes, pauses or fails; once per `Idempotency-Key`. */
export function executeRoutes(runtime: Runtime) {
  return async (app: FastifyInstance) => {
    const schema = documented(
      {
        summary: 'Run the production version and answer when it completes, pauses for tool calls or fails',
        description: 'A fresh run (`message`, `parameters`, `attachments`, `tools`) or the resume of a tool pause (`executionId`, `pausedAtStep`, `toolCallMessages`, `tools`).',
        tags: ['Runs'],
        params: flowParams,
        headers: idempotentHeaders,
        body: executeBodySchema,
        response: { 200: executeAnswerSchema },
      },
      ['apiKey'],
    );
    app.post('/seq/:org/:project/:flow/execute', { schema }, async (request, reply) =>
      answerIdempotently(runtime, request, reply, 'execute', async () => {
        const body = parseExecuteBody(request.body);
        const { flow, outcome } = await executeCall(runtime, { apiKey: request.apiKey!, ...requestOrigin(request) }, flowParams.parse(request.params), body, 'sync');
        switch (outcome.status) {
          case 'completed':
            return { status: 200, body: { status: 'completed', result: outcome.result, flowId: flow.flowId, blockCount: countBlocks(flow.steps), executionId: outcome.executionId } };
          case 'paused': {
            const { position: _position, status: _status, ...pause } = outcome;
            return { status: 200, body: { status: 'tool_calls_required', ...pause } };
          }
          case 'failed':
            throw new ApiError(outcome.code as ErrorCode, outcome.message, {
              executionId: outcome.executionId,
              failureReason: outcome.reason,
              ...(outcome.blockName ? { step_name: outcome.blockName } : {}),
            });
        }
      }),
    );
  };
}
