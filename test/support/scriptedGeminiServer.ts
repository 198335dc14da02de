import { geminiRefusal } from './geminiRequestRules.ts';
import { type ProviderDialect, type ScriptedModelServer, sse, startScriptedServer } from './scriptedModelServer.ts';

/**
 * Gemini's API as the scripted servers speak it (POST /v1beta/models/<model>:generateContent):
 * refuses what the real API refuses (geminiRequestRules.ts, with its status and error body), and
 * writes a scripted reply as a GenerateContentResponse: its content as a text part (a value as JSON
 * text, as structured output answers), its tool calls as `functionCall` parts (the first signed,
 * as Gemini 3 signs a turn's calls), usage as prompt and candidate token counts.
 */
const GENERATE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const modelOf = (url: string) => GENERATE.exec(url.split('?')[0]!)?.[1] ?? '';
const STATUS_NAMES: Record<number, string> = { 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' };

const geminiDialect: ProviderDialect = {
  serves: (url) => GENERATE.test(url.split('?')[0]!),
  refusal: (recorded) => {
    const refusal = geminiRefusal(modelOf(recorded.url), recorded.headers, recorded.body);
    return refusal ? { status: refusal.status, body: { error: { code: refusal.status, message: refusal.message, status: refusal.grpc } } } : undefined;
  },
  errorBody: (status) => ({ error: { code: status, message: `scripted ${status}`, status: STATUS_NAMES[status] ?? 'UNKNOWN' } }),
  reply: (reply, recorded, n) => {
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const text = reply.content === undefined ? undefined : typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    const parts = [
      ...(text === undefined ? [] : [{ text }]),
      ...(reply.toolCalls ?? []).map((call, i) => ({ functionCall: { id: call.id, name: call.name, args: JSON.parse(call.arguments) as unknown }, ...(i === 0 ? { thoughtSignature: Buffer.from(`signature of ${call.id}`).toString('base64') } : {}) })),
    ];
    return JSON.stringify({
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: usage.prompt_tokens, candidatesTokenCount: usage.completion_tokens, totalTokenCount: usage.prompt_tokens + usage.completion_tokens },
      modelVersion: modelOf(recorded.url),
      responseId: `resp_${n}`,
    });
  },
  // streamGenerateContent with alt=sse: one GenerateContentResponse per frame, the text in pieces, calls whole, usage and finish last.
  streams: (recorded) => recorded.url.includes(':streamGenerateContent'),
  stream: (reply, recorded, n, pieces) => {
    const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const chunk = (parts: unknown[], last: boolean) => ({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
      ...(last ? { usageMetadata: { promptTokenCount: usage.prompt_tokens, candidatesTokenCount: usage.completion_tokens, totalTokenCount: usage.prompt_tokens + usage.completion_tokens } } : {}),
      modelVersion: modelOf(recorded.url),
      responseId: `resp_${n}`,
    });
    const calls = (reply.toolCalls ?? []).map((call, i) => ({ functionCall: { id: call.id, name: call.name, args: JSON.parse(call.arguments) as unknown }, ...(i === 0 ? { thoughtSignature: Buffer.from(`signature of ${call.id}`).toString('base64') } : {}) }));
    return [...pieces.map((piece) => sse(chunk([{ text: piece }], false))), sse(chunk(calls, true))];
  },
};

/** A scripted Gemini server on loopback; its `baseUrl` is what GEMINI_BASE_URL takes (the SDK adds /v1beta/models/...). */
export const startScriptedGeminiServer = (): Promise<ScriptedModelServer> => startScriptedServer(geminiDialect, '');
