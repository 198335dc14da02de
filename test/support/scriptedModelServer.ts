import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { refusalOf } from './openaiRequestRules.ts';

/**
 * A scripted OpenAI-compatible model server on loopback: the only stand-in in the tests. It serves
 * POST /v1/chat/completions, records every request (headers and body), and answers from a queue of
 * scripted replies, or from `respond` when the queue is empty: content or JSON, token usage, tool
 * calls, HTTP errors with headers, and latency. A request the real API would refuse (openaiRequestRules.ts)
 * is answered 400 as the real API answers it.
 */
export interface ScriptedReply {
  /** A string, or a value sent as JSON text. */
  content?: unknown;
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** What the model says instead of answering (OpenAI's `refusal`; the content is then null). */
  refusal?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** The usage object as JSON text, sent as it is: what JSON.stringify cannot write (`1e400`, parsed as Infinity). */
  rawUsage?: string;
  status?: number;
  errorBody?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** The reply is sent once this settles: a test holds a run inside its model call. */
  heldUntil?: Promise<unknown>;
  /** How the content's text is cut when the request asks for a stream (default: after each space); may cut inside a character. */
  chunks?: string[];
  /** Not the API's answer at all: this page as `200 text/html` (a proxy's, a captive portal's, a misrouted gateway's). */
  page?: string;
}

export interface RecordedRequest {
  /** The path and query the request was sent to. */
  url: string;
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    messages: { role: string; content: unknown }[];
    response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
    tools?: unknown[];
    tool_choice?: unknown;
  };
}

export interface ScriptedModelServer {
  baseUrl: string;
  requests: RecordedRequest[];
  script(...replies: ScriptedReply[]): void;
  respond: (request: RecordedRequest) => ScriptedReply;
  reset(): void;
  close(): Promise<void>;
}

const defaultRespond = (): ScriptedReply => ({ content: 'ok' });

/**
 * What makes a scripted server one provider's: the path it serves, what it refuses (as that API
 * refuses it: status and body), and how a scripted reply or error is written in its format.
 */
export interface ProviderDialect {
  serves(url: string): boolean;
  refusal(recorded: RecordedRequest): { status: number; body: unknown } | undefined;
  errorBody(status: number): unknown;
  reply(reply: ScriptedReply, recorded: RecordedRequest, n: number): string;
  /** Whether the request asked for a stream. */
  streams(recorded: RecordedRequest): boolean;
  /** The reply as that API streams it: server-sent event frames, the text in `pieces`. */
  stream(reply: ScriptedReply, recorded: RecordedRequest, n: number, pieces: string[]): string[];
}

/** A reply's text as a stream sends it: the scripted pieces, else cut after each space. */
export const piecesOf = (reply: ScriptedReply): string[] => {
  const text = reply.content === undefined ? '' : typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
  if (reply.chunks) return reply.chunks;
  return text === '' ? [] : (text.match(/[^ ]+ ?| /g) ?? [text]);
};
/** One server-sent event frame. */
export const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

export const openaiDialect: ProviderDialect = {
  serves: (url) => url.endsWith('/chat/completions'),
  refusal: (recorded) => {
    const refusal = refusalOf(recorded.body);
    return refusal ? { status: 400, body: { error: { message: refusal, type: 'invalid_request_error', param: null, code: null } } } : undefined;
  },
  errorBody: (status) => ({ error: { message: `scripted ${status}`, type: 'scripted' } }),
  reply: (reply, recorded, n) => {
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const content = reply.content === undefined ? null : typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    return JSON.stringify({
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: recorded.body.model,
      choices: [
        {
          index: 0,
          finish_reason: reply.toolCalls ? 'tool_calls' : 'stop',
          message: {
            role: 'assistant',
            content: reply.refusal === undefined ? content : null,
            refusal: reply.refusal ?? null,
            ...(reply.toolCalls ? { tool_calls: reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
          },
        },
      ],
      usage: reply.rawUsage === undefined ? { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } : '__RAW_USAGE__',
    }).replace('"__RAW_USAGE__"', reply.rawUsage ?? '');
  },
  streams: (recorded) => (recorded.body as { stream?: unknown }).stream === true,
  // Chat completion chunks: the role, the text in pieces, each tool call whole, the finish, the usage when asked for, [DONE].
  stream: (reply, recorded, n, pieces) => {
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const chunk = (delta: unknown, finish: string | null = null) => ({ id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: recorded.body.model, choices: [{ index: 0, delta, finish_reason: finish }] });
    const includeUsage = (recorded.body as { stream_options?: { include_usage?: boolean } }).stream_options?.include_usage === true;
    return [
      sse(chunk({ role: 'assistant', content: '' })),
      ...pieces.map((piece) => sse(chunk({ content: piece }))),
      ...(reply.refusal === undefined ? [] : [sse(chunk({ refusal: reply.refusal }))]),
      ...(reply.toolCalls ?? []).map((c, index) => sse(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }] }))),
      sse(chunk({}, reply.toolCalls ? 'tool_calls' : 'stop')),
      ...(includeUsage ? [sse({ id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: recorded.body.model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })] : []),
      sse('[DONE]'),
    ];
  },
};

export async function startScriptedModelServer(): Promise<ScriptedModelServer> {
  return startScriptedServer(openaiDialect, '/v1');
}

/** A scripted server of `dialect` on loopback; `basePath`: what its base URL ends with (the SDK adds the rest). */
export async function startScriptedServer(dialect: ProviderDialect, basePath: string): Promise<ScriptedModelServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const state = { respond: defaultRespond as (request: RecordedRequest) => ScriptedReply };

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url || !dialect.serves(req.url)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const recorded: RecordedRequest = { url: req.url, headers: req.headers, body: JSON.parse(raw) };
      requests.push(recorded);
      // Refused as the real API refuses it, before any scripted reply is used up.
      const refusal = dialect.refusal(recorded);
      if (refusal) {
        res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(JSON.stringify(refusal.body));
        return;
      }
      const reply = queue.shift() ?? state.respond(recorded);
      const send = () => {
        if (res.destroyed) return;
        if (reply.page !== undefined) {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...reply.headers }).end(reply.page);
          return;
        }
        if (reply.status && reply.status >= 400) {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(JSON.stringify(reply.errorBody ?? dialect.errorBody(reply.status)));
          return;
        }
        if (dialect.streams(recorded)) {
          res.writeHead(200, { 'content-type': 'text/event-stream', ...reply.headers });
          // Each frame in two writes cut at its middle byte (inside a character, as a network may cut it): the client reads them as they come.
          for (const frame of dialect.stream(reply, recorded, requests.length, piecesOf(reply))) {
            const bytes = Buffer.from(frame);
            res.write(bytes.subarray(0, bytes.length >> 1));
            res.write(bytes.subarray(bytes.length >> 1));
          }
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
        res.end(dialect.reply(reply, recorded, requests.length));
      };
      if (reply.heldUntil) void reply.heldUntil.finally(send);
      else if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };

  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    requests,
    script: (...replies) => void queue.push(...replies),
    get respond() {
      return state.respond;
    },
    set respond(fn) {
      state.respond = fn;
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      state.respond = defaultRespond;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
