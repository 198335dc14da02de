import { anthropicRefusal } from './anthropicRequestRules.ts';
import { type ProviderDialect, type ScriptedModelServer, sse, startScriptedServer } from './scriptedModelServer.ts';

/**
 * Anthropic's Messages API as the scripted servers speak it (POST /v1/messages): refuses what the
 * real API refuses (anthropicRequestRules.ts, with its status and error body), and writes a scripted
 * reply as a Message: its content as a text block (a value as JSON text, as structured outputs
 * answer), its tool calls as `tool_use` blocks, usage as input and output tokens.
 */
const anthropicDialect: ProviderDialect = {
  serves: (url) => url.split('?')[0] === '/v1/messages',
  refusal: (recorded) => {
    const refusal = anthropicRefusal(recorded.headers, recorded.body);
    return refusal ? { status: refusal.status, body: { type: 'error', error: { type: refusal.type, message: refusal.message }, request_id: 'req_scripted' } } : undefined;
  },
  errorBody: (status) => ({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error', message: `scripted ${status}` }, request_id: 'req_scripted' }),
  reply: (reply, recorded, n) => {
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const text = reply.content === undefined ? undefined : typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    const content = [
      ...(text === undefined ? [] : [{ type: 'text', text, citations: null }]),
      ...(reply.toolCalls ?? []).map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments) as unknown })),
    ];
    return JSON.stringify({
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: recorded.body.model,
      content,
      stop_reason: reply.toolCalls ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
    });
  },
  streams: (recorded) => (recorded.body as { stream?: unknown }).stream === true,
  // The Messages API's events: message_start, each block's start, deltas and stop, message_delta (stop reason, output tokens), message_stop.
  stream: (reply, recorded, n, pieces) => {
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const frame = (type: string, data: Record<string, unknown>) => sse({ type, ...data }, type);
    const text = pieces.length > 0 ? [{ pieces }] : [];
    const blocks = [...text, ...(reply.toolCalls ?? []).map((call) => ({ call }))];
    return [
      frame('message_start', { message: { id: `msg_${n}`, type: 'message', role: 'assistant', model: recorded.body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.prompt_tokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } }),
      ...blocks.flatMap((block, index) =>
        'pieces' in block
          ? [
              frame('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } }),
              ...block.pieces.map((piece) => frame('content_block_delta', { index, delta: { type: 'text_delta', text: piece } })),
              frame('content_block_stop', { index }),
            ]
          : [
              frame('content_block_start', { index, content_block: { type: 'tool_use', id: block.call.id, name: block.call.name, input: {} } }),
              frame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: block.call.arguments } }),
              frame('content_block_stop', { index }),
            ],
      ),
      frame('message_delta', { delta: { stop_reason: reply.toolCalls ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.completion_tokens } }),
      frame('message_stop', {}),
    ];
  },
};

/** A scripted Anthropic server on loopback; its `baseUrl` is what ANTHROPIC_BASE_URL takes (the SDK adds /v1/messages). */
export const startScriptedAnthropicServer = (): Promise<ScriptedModelServer> => startScriptedServer(anthropicDialect, '');
