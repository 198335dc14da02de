import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { logUrl } from '../../domain/security/logUrl.ts';

/**
 * The logger a Fastify server logs its requests with: Fastify's own request fields, the URL with
 * whatever in it may be a credential redacted (logUrl). Every server of the process uses it.
 */
export function requestLogger(logger: Logger): FastifyBaseLogger {
  return logger.child({}, { serializers: { req: (req: FastifyRequest) => ({ method: req.method, url: logUrl(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }) } }) as FastifyBaseLogger;
}
