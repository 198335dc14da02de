import { parsePath } from '../queryParameters.ts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { describeIssues } from '../../../domain/validation/issuePath.ts';
import { parseRunInput, runInputSchema } from '../../../runs/runInput.ts';
import type { RunService } from '../../../runs/runService.ts';
import { answerIdempotently } from '../idempotentAnswer.ts';
import { callerOf } from '../restCaller.ts';
import type { ReadYourWrites } from '../readYourWrites.ts';
import { documented, flowParams, idempotentHeaders, runHeaders } from '../openapi/routeDocs.ts';
import { jobAcceptedSchema, jobSchema } from '../openapi/responseSchemas.ts';
import { IDEMPOTENCY, JOB_ACCEPTED, JOB_CANCELLED, RUN_LOOKUP } from '../openapi/operationErrors.ts';

const jobPath = flowParams.extend({ executionId: z.string() });
const cancelBody = z.strictObject({ reason: z.string().min(1).max(500).optional().meta({ description: 'Recorded with the cancellation' }) });

/** `/seq/{org}/{project}/{flow}/jobs`: accept a job (once per `Idempotency-Key`), poll it, cancel it. */
export function jobRoutes(runs: Pick<RunService, 'startJob' | 'pollJob' | 'cancelJob' | 'answerOnce'>, positions: Pick<ReadYourWrites, 'read'>) {
  return async (app: FastifyInstance) => {
    const start = documented(
      {
        operationId: 'startJob',
        summary: 'Accept a run to be done in the background; poll it, or get a signed webhook when it ends',
        description: '`callbackUrl` (https) and `callbackEvents` (a subset of `flow.completed`, `flow.failed`; both by default) subscribe to its end.',
        tags: ['Jobs'],
        params: flowParams,
        headers: idempotentHeaders,
        body: runInputSchema,
        response: { 202: jobAcceptedSchema },
        errors: [...JOB_ACCEPTED, ...IDEMPOTENCY],
      },
      ['apiKey'],
    );
    app.post('/seq/:org/:project/:flow/jobs', { schema: start }, async (request, reply) =>
      answerIdempotently(runs, request, reply, 'jobs', async () => runs.startJob(callerOf(request), parsePath(flowParams, request.params), parseRunInput(request.body))),
    );

    const cancel = documented(
      { operationId: 'cancelJob', summary: 'Cancel a job that has not ended: it fails with reason `cancelled` (and `flow.failed` is sent)', tags: ['Jobs'], params: jobPath, headers: runHeaders, body: cancelBody.optional(), response: { 200: jobSchema }, errors: JOB_CANCELLED },
      ['apiKey'],
    );
    app.post('/seq/:org/:project/:flow/jobs/:executionId/cancel', { schema: cancel }, async (request) => {
      const params = parsePath(jobPath, request.params);
      const parsed = cancelBody.safeParse(request.body ?? {});
      if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `Invalid body: ${describeIssues(parsed.error.issues).join('; ')}`);
      return runs.cancelJob(callerOf(request), { ...params, reason: parsed.data.reason });
    });

    const poll = documented({ operationId: 'getJob', summary: "A job's status, and its result once completed", tags: ['Jobs'], params: jobPath, response: { 200: jobSchema }, errors: RUN_LOOKUP }, ['apiKey']);
    app.get('/seq/:org/:project/:flow/jobs/:executionId', { schema: poll }, async (request) =>
      positions.read(request, [], () => runs.pollJob(callerOf(request), parsePath(jobPath, request.params))),
    );
  };
}
