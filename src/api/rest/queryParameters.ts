import type { z } from 'zod';
import { ApiError } from '../../domain/errors/apiError.ts';
import { describeIssues } from '../../domain/validation/issuePath.ts';

/** A route's query string read through its schema (the route's documented `querystring`): a mistake is a 400 VALIDATION_FAILED naming each field. */
export function parseQuery<T>(schema: z.ZodType<T>, query: unknown): T {
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `Invalid query: ${describeIssues(parsed.error.issues).join('; ')}`);
  return parsed.data;
}
