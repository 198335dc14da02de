import { z } from 'zod';
import type { ErrorCode } from '../../../domain/errors/apiError.ts';
import { errorStatus } from '../errorStatus.ts';

/** Every error status the API answers with, and the codes each carries: from the one code-to-status table. */
export function errorCodesByStatus(): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [code, status] of Object.entries(errorStatus) as [ErrorCode, number][]) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

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
 * The error answer of each status, once: its body a component of the document (`Error404`...) that
 * every route refers to (zod's registry refuses an id registered twice, hence module constants), its
 * description the codes it carries.
 */
const errorAnswers: Record<number, { description: string; content: { 'application/json': { schema: z.ZodType } } }> = Object.fromEntries(
  [...errorCodesByStatus()].map(([status, codes]) => [status, { description: codes.join(', '), content: { 'application/json': { schema: errorBodySchema(codes).meta({ id: `Error${status}` }) } } }]),
);

/** The `response` entries of every error status, for a route's schema. */
export const errorResponses = () => errorAnswers;
