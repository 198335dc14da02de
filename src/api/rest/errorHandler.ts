import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, type ErrorCode } from '../../domain/errors/apiError.ts';
import { errorStatus } from './errorStatus.ts';

export const errorBody = (error: ApiError) => ({ detail: { code: error.code, message: error.message, ...error.extra } });

/** Fastify's own client errors (bad JSON, wrong media type, body too large) in the service's shape. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
};

export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) return reply.status(errorStatus[error.code]).send(errorBody(error));
    const mapped = error.code && Object.hasOwn(fastifyCodes, error.code) ? fastifyCodes[error.code] : undefined;
    if (mapped) return reply.status(errorStatus[mapped]).send(errorBody(new ApiError(mapped, error.message)));
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send(errorBody(new ApiError('VALIDATION_FAILED', error.message)));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(errorBody(new ApiError('INTERNAL', 'Internal error')));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(errorBody(new ApiError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url}`))),
  );
}
