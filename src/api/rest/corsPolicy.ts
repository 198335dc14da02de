import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { REPLAYED_HEADER, IDEMPOTENCY_KEY_HEADER } from './idempotentAnswer.ts';
import { REQUEST_ID_HEADER } from './requestIds.ts';
import { POSITION_HEADER } from './readYourWrites.ts';

/**
 * CORS for the REST API (SEQFLOW_CORS_ORIGINS): off unless origins are configured, since an API key
 * in a browser is readable by anyone who loads the page; `*` allows every origin. Registered before
 * the API-key check, so a preflight (which carries no credentials) is answered rather than refused.
 */
export async function installCors(scope: FastifyInstance, origins: string[] | undefined) {
  if (!origins) return;
  await scope.register(cors, {
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'POST'],
    allowedHeaders: ['authorization', 'content-type', IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, 'last-event-id'],
    exposedHeaders: [REQUEST_ID_HEADER, REPLAYED_HEADER, POSITION_HEADER, 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'],
    maxAge: 600,
  });
}
