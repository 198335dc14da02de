import { isPlainObject } from '../validation/plainObject.ts';

/**
 * The shapes of block outputs and run results. The spec's `result` is always a JSON object: an llm
 * reply that is a JSON object is that object (with or without an output schema); any other final
 * value is wrapped: text as `{text}`, anything else (arrays, numbers, booleans, null) as `{value}`.
 */
export type ResultObject = Record<string, unknown>;


/** An llm reply without an output schema: a JSON object reply is that object, anything else stays text. */
export function replyOutput(reply: string): unknown {
  const trimmed = reply.trim();
  if (!trimmed.startsWith('{')) return reply;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return isPlainObject(parsed) ? parsed : reply;
  } catch {
    return reply;
  }
}

/** The run's `result`: the last step's output as an object, wrapped when it is not one. */
export function resultObject(output: unknown): ResultObject {
  if (isPlainObject(output)) return output;
  if (typeof output === 'string') return { text: output };
  return { value: output ?? null };
}
