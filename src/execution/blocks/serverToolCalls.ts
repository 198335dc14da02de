import type { ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { RequestedToolCall } from '../../domain/execution/executionEvents.ts';
import { HTTP_TIMEOUT_DEFAULT_MS } from '../../domain/blocks/http/httpConfig.ts';
import { renderRequest } from '../../domain/blocks/http/renderedRequest.ts';
import { requestIdempotencyKey, serverToolCall } from '../../domain/blocks/http/requestIdempotencyKey.ts';
import { type HttpServerTool, type ServerTool, httpToolDefinitions } from '../../domain/blocks/llm/serverTools.ts';
import type { SecretRedaction } from '../../domain/secrets/secretRedaction.ts';
import type { Tool } from '../../domain/tools/toolDefinition.ts';
import { storableExcerpt } from '../../domain/text/storableText.ts';
import { BlockFailure } from '../processors/blockFailure.ts';
import type { BlockStep } from './blockRunner.ts';
import { type McpToolSource, connectMcpSource } from './mcpToolSource.ts';
import { AttemptFailed, exchange } from './requestExchange.ts';
import { type RequestSecrets, requestSecrets, secretsMissing } from './requestSecrets.ts';

/** How much of a server tool's response is read, and how much of it the model is given. */
export const SERVER_TOOL_MAX_RESPONSE_BYTES = 1024 * 1024;
export const SERVER_TOOL_RESULT_CHARS = 64 * 1024;

/** What the model is told of a call that could not be made or did not succeed: it may correct its arguments, or go on without. */
const refusal = (error: string, extra: Record<string, unknown> = {}) => ({ ok: false, text: JSON.stringify({ error, ...extra }) });

/** The block's server tools for one execution: what the model is offered, and who answers a call of which. */
export interface ServerToolbox {
  definitions: Tool[];
  owns(name: string): boolean;
  /** Answers a model turn's calls of these tools, in the order asked, as the tool messages its next turn reads. */
  answer(calls: readonly RequestedToolCall[], round: number): Promise<ChatCompletionToolMessageParam[]>;
  close(): Promise<void>;
}

/**
 * Opens an llm block's server tools (issue 61): its http tools as written, and the allowed tools
 * of each MCP server it names (connected now, closed with `close`). Each call is answered by the
 * service with a `ServerToolCalled` event noted (the arguments and what the model was given,
 * sealed). What the model did wrong (arguments that are not JSON, not an object, not the tool's
 * schema, a request they made unsendable) and what the server answered (any status, no answer
 * after the retries, an MCP tool's error) go back to the model as the tool's result; what the flow
 * did wrong (a secret the organization no longer holds, an address the outbound guard refuses, an
 * MCP server that cannot be reached) fails the block. The tools' secrets are read once, here. `stepStarted`: when the step began
 * (performance.now()), where its requests sit on the waterfall.
 */
export async function openServerToolbox(step: BlockStep, tools: readonly ServerTool[], stepStarted: number): Promise<ServerToolbox> {
  const http = tools.filter((tool): tool is HttpServerTool => tool.type === 'http');
  // Read once for the step, before the model is asked: a secret gone since publishing fails it unspent.
  const httpSecrets = new Map<string, RequestSecrets>();
  for (const tool of http) {
    const read = await requestSecrets(step.session, tool.request);
    if (read.missing.length > 0) throw secretsMissing(`the server tool '${tool.name}'`, read.missing);
    httpSecrets.set(tool.name, read);
  }
  const sources: McpToolSource[] = [];
  try {
    for (const tool of tools) if (tool.type === 'mcp') sources.push(await connectMcpSource(step, tool));
  } catch (error) {
    await Promise.all(sources.map((source) => source.close().catch(() => undefined)));
    throw error;
  }
  const mcpOf = new Map(sources.flatMap((source) => source.definitions.map((d) => [d.function.name, source] as const)));
  const definitions = [...httpToolDefinitions(http), ...sources.flatMap((source) => source.definitions)];
  const names = new Set(definitions.map((d) => d.function.name));
  return {
    definitions,
    owns: (name) => names.has(name),
    async answer(calls, round) {
      const answers: ChatCompletionToolMessageParam[] = [];
      for (const call of calls) {
        const started = performance.now();
        const httpTool = http.find((t) => t.name === call.name);
        const source = mcpOf.get(call.name);
        const answer = httpTool ? await callHttpTool(step, httpTool, httpSecrets.get(httpTool.name)!, call, round, stepStarted) : await callMcpTool(source!, call, round);
        const { run } = step.session;
        run.recorder.note({
          type: 'ServerToolCalled',
          data: { executionId: run.executionId, stepIndex: step.stepIndex, blockId: step.block.id, blockName: step.block.name, iteration: step.iteration, round, toolCallId: call.id, toolName: call.name, toolType: httpTool ? 'http' : 'mcp', arguments: answer.arguments, result: answer.text, ok: answer.ok, durationMs: Math.round(performance.now() - started) },
        });
        answers.push({ role: 'tool', tool_call_id: call.id, content: answer.text });
      }
      return answers;
    },
    close: async () => {
      await Promise.all(sources.map((source) => source.close().catch(() => undefined)));
    },
  };
}

/** The model's arguments as an object, or what to tell it instead. */
function argumentsOf(call: RequestedToolCall): { args: Record<string, unknown> } | { refused: { ok: boolean; text: string } } {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments.trim() === '' ? '{}' : call.arguments);
  } catch {
    return { refused: refusal('the arguments are not JSON') };
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return { refused: refusal('the arguments must be a JSON object') };
  return { args: args as Record<string, unknown> };
}

const shownWith = (redact: SecretRedaction, call: RequestedToolCall) => (outcome: { ok: boolean; text: string }) => ({
  ok: outcome.ok,
  text: storableExcerpt(redact.text(outcome.text), SERVER_TOOL_RESULT_CHARS),
  arguments: storableExcerpt(redact.text(call.arguments), SERVER_TOOL_RESULT_CHARS),
});

async function callMcpTool(source: McpToolSource, call: RequestedToolCall, round: number) {
  const shown = shownWith(source.redact, call);
  const parsed = argumentsOf(call);
  if ('refused' in parsed) return shown(parsed.refused);
  return shown(await source.call(call, parsed.args, round));
}

async function callHttpTool(step: BlockStep, tool: HttpServerTool, { secrets, redact }: RequestSecrets, call: RequestedToolCall, round: number, stepStarted: number): Promise<{ ok: boolean; text: string; arguments: string }> {
  const { session, block, context, stepIndex, iteration } = step;
  const { deps, run } = session;
  const shown = shownWith(redact, call);
  const parsed = argumentsOf(call);
  if ('refused' in parsed) return shown(parsed.refused);
  const { args } = parsed;
  const mismatch = tool.parameters ? deps.http.validators.problems(tool.parameters, args) : null;
  if (mismatch) return shown(refusal('the arguments do not match the tool\'s parameters', { problems: mismatch }));
  const rendered = renderRequest(tool.request, { ...context, arguments: args }, secrets);
  if ('problem' in rendered) return shown(refusal(`the request cannot be sent: ${rendered.problem}`));

  const key = rendered.method === 'GET' ? null : requestIdempotencyKey({ executionId: run.executionId, stepIndex, blockName: block.name, iteration, call: serverToolCall(round, tool.name, args) });
  const ref = { executionId: run.executionId, stepIndex, blockId: block.id, blockName: block.name, iteration, toolCallId: call.id, toolName: tool.name };
  const elapsed = () => Math.round(performance.now() - stepStarted);
  try {
    const { sent } = await exchange(session, ref, rendered, { idempotencyKey: key, timeoutMs: tool.timeout_ms ?? HTTP_TIMEOUT_DEFAULT_MS, maxBytes: SERVER_TOOL_MAX_RESPONSE_BYTES, expectStatus: tool.expect_status, redact, elapsed });
    return shown({ ok: true, text: JSON.stringify({ status: sent.status, body: bodyOf(sent.body, sent.contentType) }) });
  } catch (error) {
    if (!(error instanceof AttemptFailed)) throw error;
    // Where the flow sends its requests is the flow's: the guard refusing it fails the block.
    if (error.verdict.code === 'HTTP_BLOCKED_HOST') throw new BlockFailure('HTTP_BLOCKED_HOST', `the server tool '${tool.name}': ${error.verdict.message}`);
    return shown(refusal(error.verdict.message, { status: error.sent.status, body: error.sent.excerpt }));
  }
}

/** A response body as the model reads it: its JSON when it is JSON, else its text. */
function bodyOf(body: Buffer | null, contentType: string | null): unknown {
  const text = new TextDecoder().decode(body ?? Buffer.alloc(0));
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
