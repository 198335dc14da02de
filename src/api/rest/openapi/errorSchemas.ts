import { z } from 'zod';
import type { ErrorCode } from '../../../domain/errors/apiError.ts';
import { errorStatus } from '../errorStatus.ts';

/** The error body for `codes`: `{detail: {code, message, requestId, ...}}` (some codes add fields, e.g. `executionId`, `problems`). */
export const errorBodySchema = (codes: readonly ErrorCode[]) =>
  z.object({
    detail: z.looseObject({
      code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      requestId: z.string().optional().meta({ description: 'The request id (X-Request-Id) to quote to support' }),
    }),
  });

/**
 * The error answers of an operation that can answer `codes`: one per status, its body the codes of
 * that status it carries (an answer with another code does not conform), its description the same list.
 */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, { description: string; content: { 'application/json': { schema: z.ZodType } } }> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, carried]) => [status, { description: carried.join(', '), content: { 'application/json': { schema: errorBodySchema(carried) } } }]));
}
