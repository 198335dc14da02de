import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Attachment } from '../../domain/execution/attachment.ts';
import type { ModelAttempt, RequestedToolCall, TokenUsage } from '../../domain/execution/executionEvents.ts';
import type { StructuredOutputPlan } from '../../domain/execution/strictSchema.ts';
import type { Tool, ToolChoice } from '../../domain/tools/toolDefinition.ts';

export interface LlmCall {
  blockName: string;
  model: string;
  prompt: string;
  attachments: Attachment[];
  /** The block's own output schema and how it is sent (strict when that keeps its meaning). */
  output: { schema: Record<string, unknown>; plan: StructuredOutputPlan } | undefined;
  /** The block's settings: its rendered system prompt, and the request parameters as the model takes them. */
  settings: { systemPrompt: string | undefined; parameters: Record<string, unknown> };
  /** Tool calling: the tools the caller sent, and the conversation so far when resuming. */
  tools?: { tools: Tool[]; toolChoice: ToolChoice; conversation?: ChatCompletionMessageParam[] };
  /** Given when someone reads the reply as it is written (/step): the reply is streamed and each piece of its text handed here. */
  onDelta?: (delta: string) => void;
}

/** One request to the model as the processor timed it: `startedAt` on the process's monotonic clock (performance.now()). */
export interface TimedModelCall {
  startedAt: number;
  durationMs: number;
  outcome: 'answered' | 'failed';
}

export type LlmResult =
  /** `validationErrors`: why earlier attempts' replies were refused (each then repaired); `rejected`: those replies. */
  | { kind: 'output'; output: unknown; usage: TokenUsage; attempts: number; validationErrors: string[]; rejected: ModelAttempt[]; calls?: TimedModelCall[] }
  /** The model asked for tool calls: `conversation` is every message so far, its request included. */
  | { kind: 'tool_calls'; toolCalls: RequestedToolCall[]; conversation: ChatCompletionMessageParam[]; usage: TokenUsage };
