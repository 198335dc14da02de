/**
 * A tool call's arguments as the object Anthropic's `input` and Gemini's `args` are: the model wrote
 * them as JSON text in the spec's format; a value that is not an object is wrapped, and text that is
 * not JSON is kept as `{text}` rather than lost.
 */
export function toolArgumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { text };
  }
}
