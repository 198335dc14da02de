import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorCode } from '../../domain/errors/apiError.ts';
import { errorStatus } from './errorStatus.ts';
import { isStorageFull } from '../../database/storageFull.ts';
import { isConnectionLoss } from '../../database/connectionLoss.ts';
import { REQUEST_ID_HEADER, withRequestId } from './requestIds.ts';

export const errorBody = (error: ApiError) => ({ detail: { code: error.code, message: error.message, ...error.extra } });

/** Fastify's own client errors in the service's shape, each with a message that names the fix. */
const fastifyCodes = new Map<string, { code: ErrorCode; message?: string }>([
  ['FST_ERR_CTP_INVALID_JSON_BODY', { code: 'INVALID_JSON' }],
  ['FST_ERR_CTP_EMPTY_JSON_BODY', { code: 'INVALID_JSON', message: 'The body is empty; send a JSON object (or no Content-Type: application/json header)' }],
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as JSON with the header `Content-Type: application/json`' }],
  ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', { code: 'INVALID_JSON', message: 'The Content-Length header does not match the body' }],
  ['FST_ERR_CTP_BODY_TOO_LARGE', { code: 'PAYLOAD_TOO_LARGE' }],
  ['FST_ERR_BAD_URL', { code: 'URL_INVALID', message: 'The URL has a malformed percent-encoding' }],
  ['FST_ERR_MAX_PARAM_LENGTH', { code: 'URL_TOO_LONG', message: 'A path segment of the URL is longer than 100 characters' }],
  ['FST_ERR_ASYNC_CONSTRAINT', { code: 'URL_INVALID' }],
]);

/** Errors Fastify raises before a route runs (bad URL encoding, over-long path segments): the `frameworkErrors` option. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // These answers skip the request's hooks: the request id is added here.
  reply.header(REQUEST_ID_HEADER, request.id);
  return sendFastifyError(error, reply, request.id);
}

function sendFastifyError(error: FastifyError, reply: FastifyReply, requestId?: string) {
  const send = (apiError: ApiError) => {
    const body = errorBody(apiError);
    return reply.status(errorStatus[apiError.code]).send(requestId ? withRequestId(body, requestId) : body);
  };
  const mapped = error.code ? fastifyCodes.get(error.code) : undefined;
  if (mapped) return send(new ApiError(mapped.code, mapped.message ?? error.message));
  // secure-json-parse refuses `__proto__` and `constructor.prototype` keys (prototype poisoning).
  if (error instanceof SyntaxError) return send(new ApiError('INVALID_JSON', `The body is not accepted JSON: ${error.message}`));
  return undefined;
}

/**
 * Errors Node's HTTP parser meets before Fastify sees a request (headers too large, a request that
 * never finishes, bytes that are not HTTP): answered in the same `{detail}` shape, then closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const [code, message]: [ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['HEADERS_TOO_LARGE', 'The request headers (or the URL) are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['REQUEST_TIMEOUT', 'The request was not received in time']
        : ['INVALID_JSON', 'The request is not valid HTTP'];
  const status = errorStatus[code];
  const body = JSON.stringify(errorBody(new ApiError(code, message)));
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

export function installErrorHandling(app: FastifyInstance, allowedMethods: (path: string) => string[]) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) return reply.status(errorStatus[error.code]).send(errorBody(error));
    const sent = sendFastifyError(error, reply);
    if (sent) return sent;
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send(errorBody(new ApiError('VALIDATION_FAILED', error.message)));
    }
    const errorId = randomUUID();
    if (isStorageFull(error)) {
      // Writes fail until an operator makes room; nothing was half-written. /health counts it.
      request.log.error({ err: error, errorId }, 'the database has no room to write');
      return reply.status(503).header('retry-after', '30').send(errorBody(new ApiError('DATABASE_STORAGE_FULL', 'the database has no room to write (disk full); nothing was recorded: retry later (with the same Idempotency-Key for /execute and /jobs)', { errorId })));
    }
    if (isConnectionLoss(error)) {
      // The database went away under this request: nothing half-written (appends are atomic); a retry may succeed.
      request.log.warn({ err: error, errorId }, 'database connection lost during a request');
      return reply.status(503).header('retry-after', '1').send(errorBody(new ApiError('DATABASE_UNAVAILABLE', 'the database connection was lost; retry (with the same Idempotency-Key for /execute and /jobs)', { errorId })));
    }
    // Internal: the text stays in the log; the caller gets an id to quote.
    request.log.error({ err: error, errorId }, 'internal error');
    return reply.status(500).send(errorBody(new ApiError('INTERNAL', 'internal error', { errorId })));
  });
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request.url.split('?')[0]!);
    if (allowed.length > 0) {
      return reply
        .status(405)
        .header('allow', allowed.join(', '))
        .send(errorBody(new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on this path; it answers ${allowed.join(', ')}`)));
    }
    return reply.status(404).send(errorBody(new ApiError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)));
  });
}
