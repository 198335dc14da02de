import type { ToolCall } from './types.ts';

/** Your tools, by name: each gets the model's parsed arguments and returns the result (sent JSON-encoded unless a string). */
export type ToolHandlers = Record<string, (args: Record<string, unknown>, call: ToolCall) => unknown>;

/** The tool messages that answer a pause's calls, in their order; a call with no handler fails the loop (the run stays paused). */
export async function answerToolCalls(calls: ToolCall[], handlers: ToolHandlers): Promise<{ role: 'tool'; tool_call_id: string; content: string }[]> {
  return Promise.all(
    calls.map(async (call) => {
      const handler = handlers[call.function.name];
      if (!handler) throw new Error(`the model called tool '${call.function.name}', which has no handler`);
      const args = call.function.arguments ? (JSON.parse(call.function.arguments) as Record<string, unknown>) : {};
      const result = await handler(args, call);
      return { role: 'tool' as const, tool_call_id: call.id, content: typeof result === 'string' ? result : JSON.stringify(result ?? null) };
    }),
  );
}
