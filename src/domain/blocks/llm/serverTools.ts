import { z } from 'zod';
import { TOOL_NAME_PATTERN, type Tool } from '../../tools/toolDefinition.ts';
import { expectStatus, httpRequestTemplate, requestTimeoutMs } from '../http/httpConfig.ts';
import { requestTemplateProblems, templatesOfRequest, unknownSecretProblems } from '../http/requestTemplateChecks.ts';

/** How many server tools one llm block may offer. */
export const MAX_SERVER_TOOLS = 16;

/**
 * An `http` server tool (issue 61): offered to the model like a caller's tool, but run by the
 * service, without a pause. Its request is a template over the run's context and the call's
 * arguments (`{{arguments.x}}`), with the organization's secrets in its URL and headers.
 */
export const httpServerTool = z.strictObject({
  type: z.literal('http'),
  name: z.string().regex(TOOL_NAME_PATTERN),
  description: z.string().max(4_000).optional(),
  /** A JSON Schema of type object: what the model is told to send, and what its arguments are checked against. */
  parameters: z.record(z.string(), z.unknown()).optional(),
  request: httpRequestTemplate,
  expect_status: expectStatus.optional(),
  timeout_ms: requestTimeoutMs.optional(),
});

export const serverTool = z.discriminatedUnion('type', [httpServerTool]);
export type ServerTool = z.infer<typeof serverTool>;
export const serverToolsShape = z.array(serverTool).min(1).max(MAX_SERVER_TOOLS);

/** The tools as the model is offered them, beside the caller's. */
export const serverToolDefinitions = (tools: readonly ServerTool[]): Tool[] =>
  tools.map((tool) => ({ type: 'function', function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.parameters ?? { type: 'object', properties: {} } } }));

/** Every template of the tools' requests (what they read of earlier blocks is checked at publish). */
export const serverToolTemplates = (tools: readonly ServerTool[]): string[] => tools.flatMap((tool) => templatesOfRequest(tool.request));

/** The tools' publish problems under `at` (`...processor_config.server_tools`). */
export function serverToolProblems(tools: readonly ServerTool[], at: string): string[] {
  const seen = new Set<string>();
  return tools.flatMap((tool, i) => {
    const here = `${at}[${i}] (tool '${tool.name}')`;
    const problems = requestTemplateProblems(tool.request, `${here}.request`);
    if (seen.has(tool.name)) problems.unshift(`${here}.name: another server tool of the block has this name`);
    seen.add(tool.name);
    if (tool.parameters !== undefined && tool.parameters.type !== 'object') problems.unshift(`${here}.parameters: must be a JSON Schema with "type": "object"`);
    return problems;
  });
}

/** The secrets the tools' requests name that the organization does not hold. */
export const serverToolSecretProblems = (tools: readonly ServerTool[], at: string, secrets: readonly string[]): string[] =>
  tools.flatMap((tool, i) => unknownSecretProblems(tool.request, `${at}[${i}] (tool '${tool.name}').request`, secrets));
