import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../../domain/errors/apiError.ts';
import type { StoredResponse } from '../../domain/idempotency/idempotencyKey.ts';
import type { IdempotentOperation } from '../../domain/idempotency/idempotencyKeyEvents.ts';
import type { RunService } from '../../runs/runService.ts';
import { errorBody } from './errorHandler.ts';
import { errorStatus } from './errorStatus.ts';
import { callerOf } from './restCaller.ts';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Set on an answer sent again for a retried key (Stripe's header). */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** A failure kept for retries is sent again as the error answer it was. */
const answerOfFailure = (error: ApiError): StoredResponse => ({ status: errorStatus[error.code], body: errorBody(error) });

/** Answers a POST once per `Idempotency-Key` header (the rules are the run service's `answerOnce`); a replayed answer carries `Idempotent-Replayed: true`. */
export async function answerIdempotently(runs: Pick<RunService, 'answerOnce'>, request: FastifyRequest, reply: FastifyReply, operation: IdempotentOperation, handle: () => Promise<StoredResponse>) {
  const call = { key: request.headers[IDEMPOTENCY_KEY_HEADER], operation, params: request.params, input: request.body };
  const { response, replayed } = await runs.answerOnce(callerOf(request), call, handle, answerOfFailure, request.log);
  if (replayed) reply.header(REPLAYED_HEADER, 'true');
  return reply.status(response.status).send(response.body);
}
