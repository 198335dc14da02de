import { randomUUID } from 'node:crypto';
import { type FastifyInstance, LogController } from 'fastify';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

// What a caller may send as its own request id: visible ASCII without spaces, as most gateways
// (and OpenAI's, Stripe's) ids are; anything else is replaced rather than logged as given.
const ACCEPTED = /^[\x21-\x7e]{1,200}$/;

/**
 * Fastify's `genReqId`: the caller's `X-Request-Id` when it is acceptable, else a new UUID. The id
 * is Fastify's `request.id`, so every log line of the request carries it as `requestId`.
 */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && ACCEPTED.test(given) ? given : randomUUID();
}

/** Fastify options that make `request.id` the request id and label it in the logs. */
export const requestIdOptions = () => ({ genReqId: requestIdFor, logController: new LogController({ requestIdLogLabel: 'requestId' }) });

/**
 * Every answer carries the request id in `X-Request-Id`, and every error body in `detail.requestId`:
 * the id a caller quotes to support, and the one in the service's logs.
 */
export function installRequestIds(app: FastifyInstance) {
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  app.addHook('preSerialization', async (request, reply, payload: unknown) => {
    return reply.statusCode >= 400 ? withRequestId(payload, request.id) : payload;
  });
  // Answers sent before `onRequest` ran (a malformed URL, a route-less method) still get the header.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader(REQUEST_ID_HEADER)) reply.header(REQUEST_ID_HEADER, request.id);
    return payload;
  });
}

const isErrorBody = (payload: unknown): payload is { detail: Record<string, unknown> } =>
  typeof payload === 'object' && payload !== null && 'detail' in payload && typeof (payload as { detail: unknown }).detail === 'object' && (payload as { detail: unknown }).detail !== null;

/** An error body (`{detail}`) with the request id in `detail.requestId`; anything else as it is. */
export const withRequestId = <Payload>(payload: Payload, requestId: string): Payload =>
  isErrorBody(payload) ? ({ ...payload, detail: { ...payload.detail, requestId } } as Payload) : payload;
