import type { Content, FunctionCallingConfigMode, GenerateContentParameters, GenerateContentResponse, Part } from '@google/genai';
import type OpenAI from 'openai';
import type { ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { ToolChoice } from '../../domain/tools/toolDefinition.ts';
import type { ChatRequest } from './chatRequest.ts';
import { toolArgumentsObject } from './toolArguments.ts';

/**
 * Gemini's generateContent in the spec's (OpenAI chat) terms, both ways. Gemini 3 models sign each
 * turn's function calls (`thoughtSignature`) and refuse a history whose calls lost it, while the spec
 * hands the conversation to the caller and takes it back unchanged: a call's signature travels on
 * the tool call as `extra_content.google.thought_signature`, where Google's own OpenAI-compatible
 * endpoint puts it, and other providers are sent tool calls without it (openaiChat.ts).
 */
type ToolCall = ChatCompletionMessageToolCall & { extra_content?: { google?: { thought_signature?: string } } };

const textOf = (content: string | readonly { type: string; text?: string }[] | null | undefined) =>
  typeof content === 'string' ? content : (content ?? []).flatMap((part) => (part.type === 'text' && part.text ? [part.text] : [])).join('\n');

function userParts(content: string | ChatCompletionContentPart[], mediaTypes: Readonly<Record<string, string>>): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.flatMap((part): Part[] => {
    if (part.type === 'text') return [{ text: part.text }];
    // Gemini reads an image by its URL when told its type: the attachment's declared type.
    if (part.type === 'image_url') return [{ fileData: { fileUri: part.image_url.url, mimeType: mediaTypes[part.image_url.url] ?? 'image/jpeg' } }];
    return [];
  });
}

function modelParts(message: Extract<ChatCompletionMessageParam, { role: 'assistant' }>): Part[] {
  const text = textOf(message.content as string | { type: string; text?: string }[] | null);
  const calls = ((message.tool_calls ?? []) as ToolCall[]).flatMap((call): Part[] => {
    if (call.type !== 'function') return [];
    const signature = call.extra_content?.google?.thought_signature;
    return [{ functionCall: { id: call.id, name: call.function.name, args: toolArgumentsObject(call.function.arguments) }, ...(signature ? { thoughtSignature: signature } : {}) }];
  });
  return [...(text ? [{ text }] : []), ...calls];
}

const MODE: Record<'auto' | 'none' | 'required', FunctionCallingConfigMode> = { auto: 'AUTO' as FunctionCallingConfigMode, none: 'NONE' as FunctionCallingConfigMode, required: 'ANY' as FunctionCallingConfigMode };

function toolConfigOf(choice: ToolChoice) {
  if (typeof choice === 'string') return { functionCallingConfig: { mode: MODE[choice] } };
  return { functionCallingConfig: { mode: MODE.required, allowedFunctionNames: [choice.function.name] } };
}

/**
 * A chat request as Gemini's generateContent takes it: system messages as `systemInstruction`, user
 * and assistant turns as `user` and `model` contents, tool calls as `functionCall` parts and tool
 * results as `functionResponse` parts (named after the call they answer) in one user turn, images
 * by URL with their type, the block's settings (already under Gemini's names) in the config, the
 * caller's tools with their JSON Schemas, and the output schema as `responseJsonSchema`.
 */
export function geminiRequestOf(request: ChatRequest): GenerateContentParameters {
  const system: string[] = [];
  const contents: Content[] = [];
  const callNames = new Map<string, string>();
  const push = (role: 'user' | 'model', parts: Part[]) => {
    const last = contents.at(-1);
    // Consecutive tool results answer one turn's calls together, in one content.
    if (last && last.role === role && parts.every((p) => p.functionResponse) && last.parts?.every((p) => p.functionResponse)) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content));
    else if (message.role === 'user') push('user', userParts(message.content, request.mediaTypes ?? {}));
    else if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) if (call.type === 'function') callNames.set(call.id, call.function.name);
      push('model', modelParts(message));
    } else if (message.role === 'tool') {
      const name = callNames.get(message.tool_call_id) ?? message.tool_call_id;
      push('user', [{ functionResponse: { id: message.tool_call_id, name, response: { result: textOf(message.content) } } }]);
    }
  }
  const tools = request.tools?.tools ?? [];
  return {
    model: request.model,
    contents,
    config: {
      ...request.parameters,
      ...(system.length > 0 ? { systemInstruction: { parts: [{ text: system.join('\n\n') }] } } : {}),
      ...(tools.length > 0
        ? {
            tools: [{ functionDeclarations: tools.map((tool) => ({ name: tool.function.name, ...(tool.function.description ? { description: tool.function.description } : {}), parametersJsonSchema: { type: 'object', ...tool.function.parameters } })) }],
            toolConfig: toolConfigOf(request.tools!.toolChoice),
          }
        : {}),
      ...(request.output ? { responseMimeType: 'application/json', responseJsonSchema: request.output.schema } : {}),
    },
  };
}

const FINISH: Record<string, OpenAI.ChatCompletion.Choice['finish_reason']> = { STOP: 'stop', MAX_TOKENS: 'length', SAFETY: 'content_filter', PROHIBITED_CONTENT: 'content_filter', BLOCKLIST: 'content_filter', SPII: 'content_filter', RECITATION: 'content_filter' };

/**
 * Gemini's answer as a chat completion: the first candidate's text parts (thoughts left out) as the
 * content, its `functionCall` parts as tool calls (ids Gemini gave, or made from the response id;
 * signatures kept), its finish reason and usage in OpenAI's terms (thinking tokens are billed output).
 */
export function chatCompletionOfGemini(response: GenerateContentResponse, model: string): OpenAI.ChatCompletion {
  const candidate = response.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  const text = parts.flatMap((part) => (part.text !== undefined && !part.thought ? [part.text] : [])).join('');
  const calls: ToolCall[] = parts.flatMap((part, i): ToolCall[] =>
    part.functionCall
      ? [
          {
            id: part.functionCall.id ?? `${response.responseId ?? 'gemini'}_${i}`,
            type: 'function',
            function: { name: part.functionCall.name ?? '', arguments: JSON.stringify(part.functionCall.args ?? {}) },
            ...(part.thoughtSignature ? { extra_content: { google: { thought_signature: part.thoughtSignature } } } : {}),
          },
        ]
      : [],
  );
  const usage = response.usageMetadata;
  const prompt = usage?.promptTokenCount ?? 0;
  const completion = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
  return {
    id: response.responseId ?? 'gemini',
    object: 'chat.completion',
    created: 0,
    model: response.modelVersion ?? model,
    choices: [
      {
        index: 0,
        finish_reason: calls.length > 0 ? 'tool_calls' : (FINISH[candidate?.finishReason ?? 'STOP'] ?? 'stop'),
        logprobs: null,
        message: { role: 'assistant', content: text || (calls.length > 0 ? null : ''), refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
      },
    ],
    ...(usage ? { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } } : {}),
  };
}

/**
 * A streamed answer's chunks as one answer: the first candidate's parts in order (consecutive text
 * joined, a function call whole as Gemini sends it), the last finish reason, usage and ids given.
 */
export function joinGeminiChunks(chunks: GenerateContentResponse[]): GenerateContentResponse {
  const parts: Part[] = [];
  for (const chunk of chunks) {
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      const last = parts.at(-1);
      if (part.text !== undefined && last?.text !== undefined && !part.functionCall && Boolean(last.thought) === Boolean(part.thought)) parts[parts.length - 1] = { ...last, text: last.text + part.text, ...(part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : {}) };
      else parts.push({ ...part });
    }
  }
  const last = <T>(pick: (chunk: GenerateContentResponse) => T | undefined) => chunks.map(pick).filter((value) => value !== undefined).at(-1);
  const finishReason = last((chunk) => chunk.candidates?.[0]?.finishReason);
  const usageMetadata = last((chunk) => chunk.usageMetadata);
  const responseId = last((chunk) => chunk.responseId);
  const modelVersion = last((chunk) => chunk.modelVersion);
  return {
    candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}) }],
    ...(usageMetadata ? { usageMetadata } : {}),
    ...(responseId ? { responseId } : {}),
    ...(modelVersion ? { modelVersion } : {}),
  } as GenerateContentResponse;
}
