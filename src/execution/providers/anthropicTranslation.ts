import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ToolChoice } from '../../domain/tools/toolDefinition.ts';
import type { ChatRequest } from './chatRequest.ts';
import { toolArgumentsObject } from './toolArguments.ts';

/** Anthropic requires a reply length; a block that sets none gets this (every current Claude model can write it). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type ContentBlock = Anthropic.Messages.ContentBlockParam;

const textOf = (content: string | readonly { type: string; text?: string }[] | null | undefined) =>
  typeof content === 'string' ? content : (content ?? []).flatMap((part) => (part.type === 'text' && part.text ? [part.text] : [])).join('\n');

function userContent(content: string | ChatCompletionContentPart[]): string | ContentBlock[] {
  if (typeof content === 'string') return content;
  return content.flatMap((part): ContentBlock[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type === 'image_url') return [{ type: 'image', source: { type: 'url', url: part.image_url.url } }];
    return [];
  });
}

/** Tool results as Anthropic wants them: in one user message, right after the assistant turn that asked. */
function toolResultOf(message: Extract<ChatCompletionMessageParam, { role: 'tool' }>): ContentBlock {
  return { type: 'tool_result', tool_use_id: message.tool_call_id, content: textOf(message.content) };
}

function assistantContent(message: Extract<ChatCompletionMessageParam, { role: 'assistant' }>): ContentBlock[] {
  const text = textOf(message.content as string | { type: string; text?: string }[] | null);
  const calls = (message.tool_calls ?? []).flatMap((call): ContentBlock[] =>
    call.type === 'function' ? [{ type: 'tool_use', id: call.id, name: call.function.name, input: toolArgumentsObject(call.function.arguments) }] : [],
  );
  return [...(text ? [{ type: 'text' as const, text }] : []), ...calls];
}

function toolChoiceOf(choice: ToolChoice): Anthropic.Messages.ToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.function.name };
}

/**
 * A chat request in the spec's (OpenAI) format as Anthropic's Messages API takes it: system
 * messages as `system`, consecutive tool results gathered into one user turn, tool calls as
 * `tool_use` blocks, images by URL, the caller's tools with their JSON Schemas as `input_schema`,
 * the output schema as `output_config.format`, and `max_tokens` always set.
 */
export function anthropicRequestOf(request: ChatRequest): Anthropic.Messages.MessageCreateParamsNonStreaming {
  const system: string[] = [];
  const messages: Anthropic.Messages.MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: string | ContentBlock[]) => {
    const last = messages.at(-1);
    // Anthropic merges consecutive turns of one role; done here so tool results share their turn.
    if (last && last.role === role && typeof blocks !== 'string' && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content));
    else if (message.role === 'user') push('user', userContent(message.content));
    else if (message.role === 'assistant') push('assistant', assistantContent(message));
    else if (message.role === 'tool') push('user', [toolResultOf(message)]);
  }
  const tools = request.tools?.tools ?? [];
  return {
    ...request.parameters,
    model: request.model,
    max_tokens: typeof request.parameters.max_tokens === 'number' ? request.parameters.max_tokens : ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
    ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({ name: tool.function.name, ...(tool.function.description ? { description: tool.function.description } : {}), input_schema: { type: 'object' as const, ...tool.function.parameters } })),
          tool_choice: toolChoiceOf(request.tools!.toolChoice),
        }
      : {}),
    ...(request.output ? { output_config: { format: { type: 'json_schema' as const, schema: request.output.schema } } } : {}),
  };
}

const FINISH: Record<string, OpenAI.ChatCompletion.Choice['finish_reason']> = { end_turn: 'stop', stop_sequence: 'stop', tool_use: 'tool_calls', max_tokens: 'length', refusal: 'content_filter' };

/**
 * Anthropic's answer as a chat completion: its text blocks as the content, its `tool_use` blocks as
 * tool calls (arguments as JSON text), its stop reason and usage in OpenAI's terms (cache reads and
 * writes count as prompt tokens: they are billed input).
 */
export function chatCompletionOf(message: Anthropic.Messages.Message): OpenAI.ChatCompletion {
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const calls = message.content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }] : []));
  const usage = message.usage;
  const prompt = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  return {
    id: message.id,
    object: 'chat.completion',
    created: 0,
    model: message.model,
    choices: [
      {
        index: 0,
        finish_reason: FINISH[message.stop_reason ?? 'end_turn'] ?? 'stop',
        logprobs: null,
        message: { role: 'assistant', content: text || (calls.length > 0 ? null : ''), refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
      },
    ],
    usage: { prompt_tokens: prompt, completion_tokens: usage.output_tokens, total_tokens: prompt + usage.output_tokens },
  };
}
