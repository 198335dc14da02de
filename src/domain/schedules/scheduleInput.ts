import { ApiError } from '../errors/apiError.ts';
import { describeIssues } from '../validation/issuePath.ts';
import { unstorableInput } from '../validation/storableJson.ts';
import { type ScheduleInput, scheduleInputSchema } from './scheduleEvents.ts';

/** A schedule's input is kept in its ScheduleAdded event: at most this many bytes of JSON. */
export const MAX_SCHEDULE_INPUT_BYTES = 256 * 1024;

/**
 * A schedule's input, as a /jobs body has it: `message` (required), `parameters`, `attachments`
 * (image URLs, checked again at each firing). Anything else is refused, naming the field: a
 * schedule's jobs never pause (no `tools`), and its callback is the schedule's own.
 */
export function parseScheduleInput(value: unknown): ScheduleInput {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ApiError('VALIDATION_FAILED', 'input: a JSON object like {"message": "...", "parameters": {...}}');
  const unstorable = unstorableInput(value, 'input');
  if (unstorable) throw unstorable;
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > MAX_SCHEDULE_INPUT_BYTES) throw new ApiError('VALIDATION_FAILED', `input: at most ${MAX_SCHEDULE_INPUT_BYTES} bytes of JSON`);
  const parsed = scheduleInputSchema.partial({ parameters: true, attachments: true }).strict().safeParse(value);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues).map((p) => `input.${p}`);
    throw new ApiError('VALIDATION_FAILED', `Invalid schedule input: ${problems.join('; ')} (message is required; parameters and attachments may follow)`, { problems });
  }
  const parameters = parsed.data.parameters ?? {};
  if (Object.hasOwn(parameters, 'attachments')) throw new ApiError('PARAMETER_NAME_RESERVED', "input.parameters.attachments: the name 'attachments' is reserved; put attachments at the top level");
  return { message: parsed.data.message, parameters, attachments: parsed.data.attachments ?? [] };
}
