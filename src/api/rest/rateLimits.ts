import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors/apiError.ts';

/**
 * Requests per API key per window (SEQFLOW_RATE_LIMIT, SEQFLOW_RATE_LIMIT_WINDOW_MS) on the routes
 * registered after it in `scope`; nothing when unset. Counted after authentication, by key id (by
 * the client's address on a route that authenticates in its handler: approvals), in this process
 * (a bounded LRU of keys). Answers carry the IETF draft `RateLimit-*` headers; a
 * refusal is `429 RATE_LIMITED` with `Retry-After`.
 */
export async function installRateLimits(scope: FastifyInstance, limit: { max: number; windowMs: number } | undefined) {
  if (!limit) return;
  await scope.register(rateLimit, {
    max: limit.max,
    timeWindow: limit.windowMs,
    // Routes' own onRequest hooks run after the scope's: the API key is known by then.
    hook: 'onRequest',
    keyGenerator: (request) => request.apiKey?.keyId ?? request.ip,
    cache: 10_000,
    enableDraftSpec: true,
    errorResponseBuilder: (request, context) =>
      new ApiError('RATE_LIMITED', `${request.apiKey ? 'This API key' : 'This client'} may make ${context.max} requests per ${limit.windowMs / 1000} s; retry in ${Math.ceil(context.ttl / 1000)} s`),
  });
}
