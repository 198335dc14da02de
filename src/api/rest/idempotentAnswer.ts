import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CommandMetadata } from '../../commands/commandHandler.ts';
import { type HeldClaim, answerIdempotencyKey, claimIdempotencyKey, releaseIdempotencyKey } from '../../commands/idempotencyCommands.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import type { StoredResponse } from '../../domain/idempotency/idempotencyKey.ts';
import type { IdempotentOperation } from '../../domain/idempotency/idempotencyKeyEvents.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import { errorBody } from './errorHandler.ts';
import { errorStatus } from './errorStatus.ts';
import { requestOrigin } from './requestTracing.ts';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Set on an answer sent again for a retried key (Stripe's header). */
export const REPLAYED_HEADER = 'idempotent-replayed';

// Stripe's bound; visible ASCII, so a key never smuggles spaces or control characters into logs.
const ACCEPTED_KEY = /^[\x21-\x7e]{1,255}$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Answers a POST once per `Idempotency-Key` (Stripe's semantics): without the header, `handle` just
 * runs. With it, the key is claimed in the log first; the same request again within 24 hours gets
 * the first answer (with `Idempotent-Replayed: true`), the same key for another request
 * IDEMPOTENCY_KEY_REUSED, and a retry while the first is in flight IDEMPOTENCY_KEY_IN_USE.
 *
 * What is kept: an answer about a run (success, pause, or a failure naming its `executionId`).
 * A refusal before any run began (validation, a missing flow, no credits) and an internal error
 * free the key instead: nothing happened that a retry could repeat.
 */
export async function answerIdempotently(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: IdempotentOperation,
  handle: () => Promise<StoredResponse>,
) {
  const key = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (key === undefined) return send(reply, await handle());
  if (typeof key !== 'string' || !ACCEPTED_KEY.test(key)) {
    throw new ApiError('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key: send one key of 1-255 visible ASCII characters (a UUID is a good choice)');
  }
  const apiKey = request.apiKey!;
  const metadata = { principal: { kind: 'apiKey' as const, id: apiKey.keyId }, ...requestOrigin(request) };
  const requestHash = sha256(canonicalize({ operation, params: request.params, body: request.body ?? null })!);
  const claim = await claimIdempotencyKey(
    runtime.commands,
    { projectId: apiKey.projectId, keyHash: sha256(key), operation, requestHash, leaseMs: runtime.config.idempotencyLeaseMs },
    metadata,
  );
  if (claim.kind === 'replay') return send(reply.header(REPLAYED_HEADER, 'true'), claim.response);

  let response: StoredResponse;
  try {
    response = await handle();
  } catch (error) {
    const executionId = error instanceof ApiError ? error.extra?.executionId : undefined;
    if (error instanceof ApiError && typeof executionId === 'string') {
      await keep(runtime, request, claim, executionId, { status: errorStatus[error.code], body: errorBody(error) }, metadata);
    } else {
      await releaseIdempotencyKey(runtime.commands, claim, metadata).catch((releaseError: unknown) =>
        request.log.warn({ err: releaseError }, 'could not free the Idempotency-Key of a refused request; it frees itself when its lease runs out'),
      );
    }
    throw error;
  }
  const executionId = (response.body as { executionId?: unknown }).executionId;
  await keep(runtime, request, claim, typeof executionId === 'string' ? executionId : null, response, metadata);
  return send(reply, response);
}

/** A failure to keep the answer does not withhold it: the claim stays in flight until its lease runs out. */
async function keep(runtime: Runtime, request: FastifyRequest, claim: HeldClaim, executionId: string | null, response: StoredResponse, metadata: CommandMetadata) {
  await answerIdempotencyKey(runtime.commands, claim, { executionId, response }, metadata).catch((error: unknown) =>
    request.log.warn({ err: error, executionId }, 'could not keep the answer of an Idempotency-Key; retries are refused IDEMPOTENCY_KEY_IN_USE until its lease runs out'),
  );
}

const send = (reply: FastifyReply, response: StoredResponse) => reply.status(response.status).send(response.body);
