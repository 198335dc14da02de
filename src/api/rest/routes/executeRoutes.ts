import { parsePath } from '../queryParameters.ts';
import type { FastifyInstance } from 'fastify';
import { parseRunInput, runInputSchema } from '../../../runs/runInput.ts';
import type { RunService } from '../../../runs/runService.ts';
import { answerIdempotently } from '../idempotentAnswer.ts';
import { callerOf } from '../restCaller.ts';
import { documented, flowParams, idempotentHeaders } from '../openapi/routeDocs.ts';
import { executeAnswerSchema, executeWaitingSchema } from '../openapi/responseSchemas.ts';
import { IDEMPOTENCY, RUN_STARTED } from '../openapi/operationErrors.ts';

/** `POST /seq/{org}/{project}/{flow}/execute`: a fresh run or a resume, answered when it completes, pauses or fails; once per `Idempotency-Key`. */
export function executeRoutes(runs: Pick<RunService, 'execute' | 'answerOnce'>) {
  return async (app: FastifyInstance) => {
    const schema = documented(
      {
        operationId: 'executeFlow',
        summary: 'Run the production version and answer when it completes, pauses for tool calls or fails',
        description: 'A fresh run (`message`, `parameters`, `attachments`, `tools`) or the resume of a tool pause (`executionId`, `pausedAtStep`, `toolCallMessages`, `tools`). A run that reaches an approval block is answered at once with 202 and what it waits for (an addition to the spec).',
        tags: ['Runs'],
        params: flowParams,
        headers: idempotentHeaders,
        body: runInputSchema,
        response: { 200: executeAnswerSchema, 202: executeWaitingSchema },
        errors: [...RUN_STARTED, ...IDEMPOTENCY],
      },
      ['apiKey'],
    );
    app.post('/seq/:org/:project/:flow/execute', { schema }, async (request, reply) =>
      answerIdempotently(runs, request, reply, 'execute', async () => runs.execute(callerOf(request), parsePath(flowParams, request.params), parseRunInput(request.body))),
    );
  };
}
