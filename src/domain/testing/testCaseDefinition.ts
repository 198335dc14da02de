import { z } from 'zod';
import { attachmentSchema } from '../execution/attachment.ts';
import { RESULT_PATH_PATTERN } from './resultPath.ts';
import { BLOCK_NAME_PATTERN } from '../flows/flowDefinition.ts';

/**
 * A test case of a flow: an input, scripted tool results (tool name -> content) so flows with
 * tools-enabled blocks can be tested without a caller, and typed assertions on what the run did.
 * `path` points into the run's result (`issues[0].category`); absent means the whole result.
 */
const path = z.string().regex(RESULT_PATH_PATTERN, 'must be a path such as issues[0].category');

/** An llm_judge passes at this score (0-1) unless its `threshold` says otherwise. */
export const LLM_JUDGE_DEFAULT_THRESHOLD = 0.7;

const optionalPath = path.optional().describe('Where in the run\'s result, e.g. issues[0].category; absent: the whole result');
const requiredPath = path.describe('Where in the run\'s result, e.g. overall_score or issues[0].category');

const stepName = z.string().regex(BLOCK_NAME_PATTERN, 'must be a block name');
/** Any assertion may name a block: it then checks that block's output (its time, tokens, tool calls) instead of the run's. */
const step = { step: stepName.optional().describe("A block's name: check that block's output (or time, tokens, tool calls) instead of the run's result") };

/** Each assertion type, every field described: an assistant reads these as the tool's input schema. */
export const assertionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('equals').describe('The value (or the whole result) equals `value` exactly (JSON)'), path: optionalPath, value: z.unknown().describe('The expected JSON value'), ...step }),
  z.strictObject({ type: z.literal('contains').describe('The text of the value contains `value`'), path: optionalPath, value: z.string().describe('Text that must appear'), ...step }),
  z.strictObject({ type: z.literal('not_contains').describe('The text of the value does not contain `value`'), path: optionalPath, value: z.string().describe('Text that must not appear'), ...step }),
  z.strictObject({ type: z.literal('regex').describe('The text of the value matches `pattern`'), path: optionalPath, pattern: z.string().min(1).max(1000).describe('A JavaScript regular expression, without slashes'), ...step }),
  z.strictObject({ type: z.literal('json_schema').describe('The whole result validates against `schema`'), schema: z.record(z.string(), z.unknown()).describe('A JSON Schema object'), ...step }),
  z.strictObject({ type: z.literal('path_equals').describe('The value at `path` equals `value` exactly'), path: requiredPath, value: z.unknown().describe('The expected JSON value'), ...step }),
  z.strictObject({ type: z.literal('number_range').describe('The number at `path` is within [min, max]'), path: requiredPath, min: z.number().optional().describe('Lowest allowed, inclusive'), max: z.number().optional().describe('Highest allowed, inclusive'), ...step }),
  z.strictObject({ type: z.literal('max_latency_ms').describe('The run (or the step) took at most `value` milliseconds'), value: z.number().int().min(0).describe('Milliseconds'), ...step }),
  z.strictObject({ type: z.literal('max_tokens').describe('The run (or the step) used at most `value` tokens in all'), value: z.number().int().min(0).describe('Tokens'), ...step }),
  z.strictObject({ type: z.literal('tool_called').describe('The run (or the step) asked for the tool `name` (optionally with these arguments)'), name: z.string().min(1).describe('The tool\'s name'), arguments: z.record(z.string(), z.unknown()).optional().describe('Arguments it must have been called with (a subset)'), ...step }),
  z.strictObject({
    type: z.literal('llm_judge').describe('A model scores the result (or the step\'s output) against `rubric` (0-1); passes at `threshold`'),
    rubric: z.string().min(1).max(10_000).describe('What a good result does, in plain words'),
    model: z.string().min(1).optional().describe('The judging model (default: the service\'s default model)'),
    threshold: z.number().min(0).max(1).optional().describe(`Score needed to pass (default ${LLM_JUDGE_DEFAULT_THRESHOLD})`),
    ...step,
  }),
  z.strictObject({ type: z.literal('step_skipped').describe('The block `step` was skipped (its run_if was not true)'), step: stepName.describe("The block's name") }),
  z.strictObject({ type: z.literal('step_ran').describe('The block `step` ran to completion (not skipped, not failed)'), step: stepName.describe("The block's name") }),
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
