import type { Tool } from '../domain/tools/toolDefinition.ts';
import type { ToolRequest } from '../execution/engineDependencies.ts';
import type { ToolAnswers } from '../execution/answeredToolsRun.ts';

/**
 * Tool results scripted by name (a test case's `tool_results`, a trial's): the tools are declared to
 * the model so tools-enabled blocks can call them, and each call is answered with its tool's
 * content (a call to a tool with none gets a message saying so). `source` names who scripted them.
 */
export function scriptedTools(results: Readonly<Record<string, string>> | undefined, source: string): ToolRequest | undefined {
  const names = Object.keys(results ?? {});
  if (names.length === 0) return undefined;
  const tools: Tool[] = names.map((name) => ({ type: 'function', function: { name, description: `Scripted by ${source}`, parameters: { type: 'object' } } }));
  return { tools, toolChoice: 'auto' };
}

export const answerFromScript =
  (results: Readonly<Record<string, string>> | undefined) =>
  (pause: { toolCalls: { id: string; function: { name: string } }[] }): ToolAnswers => ({
    messages: pause.toolCalls.map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: results?.[call.function.name] ?? `no scripted result for tool ${call.function.name}` })),
  });
