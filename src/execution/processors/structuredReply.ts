import { dropNullOptionals } from '../../domain/execution/strictSchema.ts';
import { unstorableJson } from '../../domain/validation/storableJson.ts';
import type { SchemaValidators } from '../schemaValidators.ts';
import type { LlmCall } from './llmCall.ts';

/** The reply as the block's structured output (checked against the user's own schema), or the reason it is not. */
export function parseStructured(content: string | null | undefined, output: NonNullable<LlmCall['output']>, validators: SchemaValidators): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (!content) return { ok: false, problem: 'the reply was empty' };
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return { ok: false, problem: 'the reply was not JSON' };
  }
  if (output.plan.strict) value = dropNullOptionals(value, output.schema);
  const unstorable = unstorableJson(value, 'reply');
  if (unstorable) return { ok: false, problem: unstorable.message };
  const problems = validators.problems(output.schema, value);
  return problems ? { ok: false, problem: `the reply did not match the schema: ${problems}` } : { ok: true, value };
}
