import { ApiError } from '../errors/apiError.ts';
import { blockKinds } from '../blocks/blockKinds.ts';
import { type StoredStep, blocksOfStep } from '../flows/flowDefinition.ts';
import { TOOL_NAME_PATTERN, type Tool, type ToolChoice } from './toolDefinition.ts';

/** Spec section 2 (Tool, ToolMessage) and section 8 (limits), checked in the documented order. */
export const MAX_TOOLS = 64;
export const MAX_TOOL_SCHEMA_BYTES = 16 * 1024;
export const MAX_TOOL_RESULT_BYTES = 256 * 1024;
export const MAX_TOOL_MESSAGES_BYTES = 1024 * 1024;


const bytes = (value: unknown) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const invalid = (message: string) => new ApiError('TOOLS_INVALID', message);

/** Validates `tools` and `toolChoice`; returns them typed. */
export function checkTools(rawTools: unknown[], rawChoice: unknown): { tools: Tool[]; toolChoice: ToolChoice } {
  if (rawTools.length > MAX_TOOLS) throw invalid(`at most ${MAX_TOOLS} tools per request (got ${rawTools.length})`);
  const names = new Set<string>();
  const tools = rawTools.map((tool, i): Tool => {
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) throw invalid(`tools[${i}]: expected {type: "function", function: {name, description, parameters}}`);
    const { name, description, parameters } = tool.function;
    if (typeof name !== 'string') throw invalid(`tools[${i}].function.name: expected a string`);
    if (!TOOL_NAME_PATTERN.test(name)) throw new ApiError('TOOL_NAME_INVALID', `tools[${i}].function.name: '${name}' does not match ${TOOL_NAME_PATTERN.source}`);
    if (names.has(name)) throw invalid(`tools[${i}].function.name: '${name}' is used by another tool`);
    names.add(name);
    if (description !== undefined && typeof description !== 'string') throw invalid(`tools[${i}].function.description: expected a string`);
    // Providers refuse a function whose parameters are not an object schema (OpenAI answers 400).
    if (parameters !== undefined && (!isObject(parameters) || parameters.type !== 'object')) throw invalid(`tools[${i}].function.parameters: expected a JSON Schema with "type": "object"`);
    if (parameters !== undefined && bytes(parameters) > MAX_TOOL_SCHEMA_BYTES) throw invalid(`tools[${i}].function.parameters: larger than ${MAX_TOOL_SCHEMA_BYTES} bytes`);
    const extra = Object.keys(tool).filter((k) => k !== 'type' && k !== 'function');
    if (extra.length > 0) throw invalid(`tools[${i}].${extra[0]}: unknown field`);
    return { type: 'function', function: { name, ...(description !== undefined ? { description } : {}), ...(parameters !== undefined ? { parameters } : {}) } };
  });

  let toolChoice: ToolChoice = 'auto';
  if (rawChoice !== undefined) {
    if (rawChoice === 'auto' || rawChoice === 'none' || rawChoice === 'required') toolChoice = rawChoice;
    else if (isObject(rawChoice) && rawChoice.type === 'function' && isObject(rawChoice.function) && typeof rawChoice.function.name === 'string') {
      if (!names.has(rawChoice.function.name)) throw invalid(`toolChoice names '${rawChoice.function.name}', which is not one of the sent tools`);
      toolChoice = { type: 'function', function: { name: rawChoice.function.name } };
    } else throw invalid('toolChoice: expected "auto", "none", "required" or {type: "function", function: {name}}');
  }
  return { tools, toolChoice };
}

/** 413 before anything else looks at a resume's messages; then each tool result's size. */
export function checkToolMessagesSize(messages: unknown[]): void {
  if (bytes(messages) > MAX_TOOL_MESSAGES_BYTES) {
    throw new ApiError('MESSAGES_TOO_LARGE', `toolCallMessages is larger than ${MAX_TOOL_MESSAGES_BYTES} bytes`);
  }
  messages.forEach((message, i) => {
    if (!isObject(message) || message.role !== 'tool') return;
    if (typeof message.content !== 'string') throw invalid(`toolCallMessages[${i}].content: a tool result's content is a string`);
    if (bytes(message.content) > MAX_TOOL_RESULT_BYTES) throw invalid(`toolCallMessages[${i}].content: larger than ${MAX_TOOL_RESULT_BYTES} bytes`);
  });
}

/** Spec rules 5 and 6: some llm block enables tools, and none of them sits in a parallel step or a loop. */
export function checkToolsAllowedIn(steps: StoredStep[]): void {
  const enabled = steps.flatMap((step) => blocksOfStep(step).filter((b) => b.processor_config?.tools_enabled && blockKinds[b.processor_type].callsTools).map((b) => ({ step, b })));
  if (enabled.length === 0) throw new ApiError('TOOLS_NOT_ENABLED', 'tools were sent, but no llm block of the production version has processor_config.tools_enabled');
  const nested = enabled.find(({ step }) => 'parallel' in step || 'loop' in step);
  if (nested) {
    throw new ApiError('TOOLS_IN_NON_SEQUENTIAL_STEP', `block '${nested.b.name}' enables tools inside a ${'parallel' in nested.step ? 'parallel step' : 'loop'}; tool-enabled blocks must be steps of their own`);
  }
}
