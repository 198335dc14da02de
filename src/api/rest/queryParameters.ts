import type { z } from 'zod';
import { ApiError } from '../../domain/errors/apiError.ts';
import { describeIssues } from '../../domain/validation/issuePath.ts';

/** A route's query string read through its schema (the route's documented `querystring`): a mistake is a 400 VALIDATION_FAILED naming each field. */
export function parseQuery<T>(schema: z.ZodType<T>, query: unknown): T {
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `Invalid query: ${describeIssues(parsed.error.issues).join('; ')}`);
  return parsed.data;
}

/**
 * A route's path parameters read through its schema: one that cannot name anything (an empty or
 * over-long id, `runs//data`) is a 404 ROUTE_NOT_FOUND naming it, as the same path with no such
 * segment would be, never the schema's exception.
 */
export function parsePath<T>(schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new ApiError('ROUTE_NOT_FOUND', `No such path: ${describeIssues(parsed.error.issues).join('; ')}`);
  return parsed.data;
}
