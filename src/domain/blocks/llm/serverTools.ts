import { z } from 'zod';
import { TOOL_NAME_PATTERN, type Tool } from '../../tools/toolDefinition.ts';
import { expectStatus, httpRequestTemplate, requestTimeoutMs } from '../http/httpConfig.ts';
import { requestTemplateProblems, templatesOfRequest, unknownSecretProblems } from '../http/requestTemplateChecks.ts';
import { SECRET_NAME } from '../../secrets/secretRules.ts';

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

/**
 * An `mcp` server tool source (issue 61): a remote MCP server spoken to over Streamable HTTP, and
 * the names of its tools the model may call (each offered under its own name, with the server's
 * description and input schema). Its headers are templates like a request's, so a bearer
 * credential is `Bearer {{secrets.<name>}}`; a server that wants OAuth is given `oauth.tokens`
 * instead: the secret holding the client and its tokens (storedOAuth.ts), refreshed as they expire.
 */
export const mcpServerTool = z.strictObject({
  type: z.literal('mcp'),
  url: z.string().min(1).max(2_000),
  headers: z.record(z.string().min(1).max(200), z.string().max(8_000)).optional(),
  oauth: z.strictObject({ tokens: z.string().regex(SECRET_NAME, 'a secret name') }).optional(),
  allowed_tools: z.array(z.string().regex(TOOL_NAME_PATTERN)).min(1).max(32),
  timeout_ms: requestTimeoutMs.optional(),
});

export const serverTool = z.discriminatedUnion('type', [httpServerTool, mcpServerTool]);
export type HttpServerTool = z.infer<typeof httpServerTool>;
export type McpServerTool = z.infer<typeof mcpServerTool>;
export type ServerTool = z.infer<typeof serverTool>;
export const serverToolsShape = z.array(serverTool).min(1).max(MAX_SERVER_TOOLS);

/** An MCP source's request as the checks read it: a POST to its URL with its headers. */
const mcpRequest = (tool: McpServerTool) => ({ method: 'POST' as const, url: tool.url, ...(tool.headers ? { headers: tool.headers } : {}) });
const requestOf = (tool: ServerTool) => (tool.type === 'http' ? tool.request : mcpRequest(tool));

/** The names the model may call: an http tool's, and each allowed tool of an MCP server. */
export const serverToolNames = (tools: readonly ServerTool[]): string[] => tools.flatMap((tool) => (tool.type === 'http' ? [tool.name] : tool.allowed_tools));

/** The http tools as the model is offered them, beside the caller's (an MCP server's come from its own list). */
export const httpToolDefinitions = (tools: readonly ServerTool[]): Tool[] =>
  tools.flatMap((tool) => (tool.type === 'http' ? [{ type: 'function' as const, function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.parameters ?? { type: 'object', properties: {} } } }] : []));

/** Every template of the tools' requests (what they read of earlier blocks is checked at publish). */
export const serverToolTemplates = (tools: readonly ServerTool[]): string[] => tools.flatMap((tool) => templatesOfRequest(requestOf(tool)));

/** The tools' publish problems under `at` (`...processor_config.server_tools`). */
export function serverToolProblems(tools: readonly ServerTool[], at: string): string[] {
  const seen = new Set<string>();
  const named = (name: string, here: string) => {
    const taken = seen.has(name);
    seen.add(name);
    return taken ? [`${here}: '${name}' is the name of another server tool of the block`] : [];
  };
  return tools.flatMap((tool, i) => {
    if (tool.type === 'mcp') {
      const here = `${at}[${i}] (mcp ${tool.url})`;
      const twoCredentials = tool.oauth && Object.keys(tool.headers ?? {}).some((name) => name.toLowerCase() === 'authorization') ? [`${here}.oauth: the server's credential is its OAuth tokens or an Authorization header, not both`] : [];
      return [...requestTemplateProblems(mcpRequest(tool), here), ...twoCredentials, ...tool.allowed_tools.flatMap((name) => named(name, `${here}.allowed_tools`))];
    }
    const here = `${at}[${i}] (tool '${tool.name}')`;
    const problems = requestTemplateProblems(tool.request, `${here}.request`);
    problems.unshift(...named(tool.name, `${here}.name`));
    if (tool.parameters !== undefined && tool.parameters.type !== 'object') problems.unshift(`${here}.parameters: must be a JSON Schema with "type": "object"`);
    return problems;
  });
}

/** The secrets the tools' requests name that the organization does not hold. */
export const serverToolSecretProblems = (tools: readonly ServerTool[], at: string, secrets: readonly string[]): string[] =>
  tools.flatMap((tool, i) => [
    ...unknownSecretProblems(requestOf(tool), tool.type === 'http' ? `${at}[${i}] (tool '${tool.name}').request` : `${at}[${i}] (mcp ${tool.url})`, secrets),
    ...(tool.type === 'mcp' && tool.oauth && !secrets.includes(tool.oauth.tokens) ? [`${at}[${i}] (mcp ${tool.url}).oauth.tokens: the organization has no secret '${tool.oauth.tokens}' (store the client and its tokens with seqflow secret set --org <org> --name ${tool.oauth.tokens})`] : []),
  ]);
