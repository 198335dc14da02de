import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { unstorableInput } from '../../domain/validation/storableJson.ts';

/** A JSON-RPC answer the endpoint gives itself, without running the tool. */
export interface ToolRefusal {
  jsonrpc: '2.0';
  id: string | number;
  result: CallToolResult;
}

const isToolCall = (message: unknown): message is { id: string | number; method: 'tools/call'; params: { arguments?: unknown } } => {
  const m = message as { method?: unknown; id?: unknown; params?: unknown } | null;
  return typeof m === 'object' && m !== null && m.method === 'tools/call' && (typeof m.id === 'string' || typeof m.id === 'number') && typeof m.params === 'object' && m.params !== null;
};

/**
 * The text rule of every face (src/domain/validation/storableJson.ts) on an MCP POST. A tool's
 * arguments that the log cannot store (a NUL, an unpaired surrogate) are a tool error naming the
 * argument (`INVALID_TEXT: arguments.name contains a NUL character…`), which the model reads and
 * acts on, as it does a schema refusal; the tool does not run. Anything else in the message that
 * cannot be stored is refused as every REST body is (thrown: 400 naming the path).
 */
export function refuseUnstorableArguments(body: unknown): ToolRefusal | undefined {
  if (!isToolCall(body)) {
    const refusal = unstorableInput(body, 'body');
    if (refusal) throw refusal;
    return undefined;
  }
  const { arguments: args, ...params } = body.params;
  const envelope = unstorableInput({ ...body, params }, 'body');
  if (envelope) throw envelope;
  const refusal = unstorableInput(args, 'arguments');
  if (!refusal) return undefined;
  return { jsonrpc: '2.0', id: body.id, result: { isError: true, content: [{ type: 'text', text: `${refusal.code}: ${refusal.message}` }] } };
}
