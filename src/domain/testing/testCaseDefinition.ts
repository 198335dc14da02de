import { z } from 'zod';
import { attachmentSchema } from '../execution/attachment.ts';
import { RESULT_PATH_PATTERN } from './resultPath.ts';

/**
 * A test case of a flow: an input, scripted tool results (tool name -> content) so flows with
 * tools-enabled blocks can be tested without a caller, and typed assertions on what the run did.
 * `path` points into the run's result (`issues[0].category`); absent means the whole result.
 */
const path = z.string().regex(RESULT_PATH_PATTERN, 'must be a path such as issues[0].category');

/** An llm_judge passes at this score (0-1) unless its `threshold` says otherwise. */
export const LLM_JUDGE_DEFAULT_THRESHOLD = 0.7;

export const assertionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('equals'), path: path.optional(), value: z.unknown() }),
  z.strictObject({ type: z.literal('contains'), path: path.optional(), value: z.string() }),
  z.strictObject({ type: z.literal('not_contains'), path: path.optional(), value: z.string() }),
  z.strictObject({ type: z.literal('regex'), path: path.optional(), pattern: z.string().min(1).max(1000) }),
  z.strictObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }),
  z.strictObject({ type: z.literal('path_equals'), path, value: z.unknown() }),
  z.strictObject({ type: z.literal('number_range'), path, min: z.number().optional(), max: z.number().optional() }),
  z.strictObject({ type: z.literal('max_latency_ms'), value: z.number().int().min(0) }),
  z.strictObject({ type: z.literal('max_tokens'), value: z.number().int().min(0) }),
  z.strictObject({ type: z.literal('tool_called'), name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional() }),
  z.strictObject({ type: z.literal('llm_judge'), rubric: z.string().min(1).max(10_000), model: z.string().min(1).optional(), threshold: z.number().min(0).max(1).optional() }),
]);
export type Assertion = z.infer<typeof assertionSchema>;

export const testCaseSchema = z.strictObject({
  name: z.string().min(1).max(200),
  input: z.strictObject({
    message: z.string(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    attachments: z.array(attachmentSchema).max(10).optional(),
  }),
  tool_results: z.record(z.string(), z.string().max(256 * 1024)).optional(),
  assertions: z.array(assertionSchema).min(1).max(100),
});
export type TestCaseDefinition = z.infer<typeof testCaseSchema>;
