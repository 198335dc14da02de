import { z } from 'zod';

/**
 * Who caused an event: a signed-in user, an API key, the CLI operator or the service itself. A user
 * acting through an assistant carries the channel (`via: 'mcp'`) and the OAuth client it signed in with.
 */
export const principalSchema = z.object({
  kind: z.enum(['user', 'apiKey', 'cli', 'system']),
  id: z.string().min(1),
  via: z.enum(['mcp', 'console']).optional(),
  clientId: z.string().min(1).optional(),
});
export type Principal = z.infer<typeof principalSchema>;

export const eventMetadataSchema = z.object({
  correlationId: z.string().min(1),
  causationId: z.string().min(1).nullable(),
  principal: principalSchema,
  occurredAt: z.iso.datetime(),
  /** The API request (X-Request-Id) that caused the event, or that started the run it belongs to. */
  requestId: z.string().min(1).max(200).optional(),
  /**
   * W3C trace context of the request's span (or, for a run, the span its trace continues from), so
   * another process doing the work these events start (a worker running a job, a webhook attempt)
   * continues the same trace. Only when tracing is on.
   */
  traceparent: z.string().regex(/^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/).optional(),
  /** A run's events: the process running it (its runner lease), so a sweep can end the run if that process dies. */
  runner: z.string().min(1).max(200).optional(),
  /** Personal data in the event is sealed under its run's data key (src/domain/privacy/sealedFields.ts). */
  sealed: z.literal(true).optional(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

/** What the writer of an event knows of its cause; the rest of the metadata is the writer's own. */
export type EventOrigin = Pick<EventMetadata, 'principal' | 'requestId' | 'traceparent'>;

/** The optional parts of an origin, only when present (the metadata leaves absent ones out rather than storing undefined). */
export const originMarks = ({ requestId, traceparent }: Pick<EventMetadata, 'requestId' | 'traceparent'>) => ({
  ...(requestId === undefined ? {} : { requestId }),
  ...(traceparent === undefined ? {} : { traceparent }),
});
