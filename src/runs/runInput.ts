import { z } from 'zod';
import { ApiError } from '../domain/errors/apiError.ts';
import { attachmentSchema } from '../domain/execution/attachment.ts';
import { describeIssues } from '../domain/validation/issuePath.ts';

/** What a caller sends to start or resume a run (the spec's execute/jobs/step body, section 2). */
export const runInputSchema = z.strictObject({
  message: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  attachments: z.array(attachmentSchema).optional(),
  tools: z.array(z.unknown()).optional(),
  toolChoice: z.unknown().optional(),
  executionId: z.string().optional(),
  pausedAtStep: z.string().optional(),
  iterationsUsed: z.number().int().optional(),
  toolCallMessages: z.array(z.unknown()).optional(),
  // Honoured only by jobs (spec rule 2): accepted and ignored elsewhere.
  callbackUrl: z.unknown().optional(),
  callbackEvents: z.unknown().optional(),
});
export type RunInput = z.infer<typeof runInputSchema>;

/** Validates the input's shape; every problem names its field. */
export function parseRunInput(input: unknown): RunInput {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ApiError('REQUEST_INVALID', 'The request body must be a JSON object');
  const parsed = runInputSchema.safeParse(input);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues);
    throw new ApiError('REQUEST_INVALID', `Invalid request: ${problems.join('; ')}`, { problems });
  }
  if (parsed.data.parameters && Object.prototype.hasOwnProperty.call(parsed.data.parameters, 'attachments')) {
    throw new ApiError('PARAMETER_NAME_RESERVED', "parameters.attachments: the name 'attachments' is reserved; send attachments at the top level");
  }
  return parsed.data;
}

/** A fresh run's message: required (a resume has none). */
export function requireMessage(input: RunInput, problem: string): string {
  if (input.message === undefined) throw new ApiError('REQUEST_INVALID', `message: ${problem}`, { problems: ['message: required'] });
  return input.message;
}
