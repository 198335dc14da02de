import { STATUS_CODES } from 'node:http';
import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import type { ErrorCode } from '../../../domain/errors/apiError.ts';
import { errorResponses } from './errorSchemas.ts';
import { ANY_REQUEST, AUTHENTICATION, WITH_BODY } from './operationErrors.ts';

/** The path of a flow's routes; handlers parse `request.params` with it too. */
export const flowParams = z.object({
  org: z.string().meta({ description: 'Organization slug' }),
  project: z.string().meta({ description: 'Project slug' }),
  flow: z.string().meta({ description: 'Flow slug' }),
});

/** The request headers the service reads on a run's routes. */
export const runHeaders = z.object({
  'x-request-id': z.string().optional().meta({ description: 'Your id for the request (1-200 visible ASCII characters): echoed in `X-Request-Id`, in error bodies, logs and the run\'s events' }),
  traceparent: z.string().optional().meta({ description: 'W3C Trace Context: the run continues your trace (when the service exports traces)' }),
});
export const idempotentHeaders = runHeaders.extend({
  'idempotency-key': z.string().optional().meta({ description: 'Up to 255 visible ASCII characters: the same key with the same request within 24 h answers the first response again (`Idempotent-Replayed: true`)' }),
});

type RouteDoc = Omit<FastifySchema, 'response'> & {
  /** Unique, camelCase: what generated clients name the call. */
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  response: Record<number, unknown>;
  /** The codes this operation's own work can answer (operationErrors.ts); those of any request, a body and authentication are added. */
  errors: readonly ErrorCode[];
};

/**
 * A route's schema for the document: its own answers, the error statuses it can answer (each with
 * the codes it carries here), and how callers authenticate (any one of `auth`).
 */
export function documented(doc: RouteDoc, auth: ('apiKey' | 'operatorToken')[]): FastifySchema {
  const { errors, ...schema } = doc;
  const own = Object.fromEntries(Object.entries(doc.response).map(([status, answer]) => [status, hasContent(answer) ? answer : { description: STATUS_CODES[Number(status)], content: { 'application/json': { schema: answer } } }]));
  const codes = new Set([...ANY_REQUEST, ...(doc.body ? WITH_BODY : []), ...auth.flatMap((scheme) => AUTHENTICATION[scheme]), ...errors]);
  return { ...schema, ...(auth.length === 0 ? {} : { security: auth.map((scheme) => ({ [scheme]: [] })) }), response: { ...errorResponses([...codes]), ...own } };
}

const hasContent = (answer: unknown) => typeof answer === 'object' && answer !== null && 'content' in answer;

/** A server-sent events answer (OpenAPI 3.1 cannot type the events: the description lists them). */
export const eventStream = (description: string) => ({ description, content: { 'text/event-stream': { schema: z.string().meta({ description }) } } });
