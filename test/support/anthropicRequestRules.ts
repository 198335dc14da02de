/**
 * What Anthropic's Messages API (version 2026-10-21, the one its SDK 1.x sends) refuses among the
 * requests Seqflow sends, so the scripted Anthropic server refuses them too: from the API reference
 * (MessageCreateParams), the tool use guide (every `tool_use` answered by a `tool_result` in the next
 * user turn, and no other) and the version's migration notes (no temperature, top_p or top_k, even at
 * their defaults). Returns the refusal's status and message, or undefined.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const ANTHROPIC_VERSIONS = ['2023-06-01', '2026-10-21'];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** Every body field of MessageCreateParams in API version 2026-10-21; anything else is "Extra inputs are not permitted". */
const BODY_FIELDS = new Set([
  'max_tokens', 'messages', 'model', 'cache_control', 'container', 'diagnostics', 'inference_geo', 'metadata', 'output_config',
  'service_tier', 'speed', 'stop_sequences', 'stream', 'system', 'thinking', 'tool_choice', 'tools', 'user_profile_id', 'workspace_id',
]);
/** Taken under 2023-06-01, refused under 2026-10-21. */
const SAMPLING = ['temperature', 'top_p', 'top_k'];
const BLOCK_TYPES = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'search_result']);

export function anthropicRefusal(headers: Record<string, string | string[] | undefined>, body: unknown): { status: number; type: string; message: string } | undefined {
  const invalid = (message: string) => ({ status: 400, type: 'invalid_request_error', message });
  const version = headers['anthropic-version'];
  if (typeof version !== 'string') return invalid('anthropic-version: header is required');
  if (!ANTHROPIC_VERSIONS.includes(version)) return invalid(`anthropic-version: ${version} is not a valid version`);
  const bearer = typeof headers.authorization === 'string' && /^Bearer \S+/.test(headers.authorization);
  if (!headers['x-api-key'] && !bearer) return { status: 401, type: 'authentication_error', message: 'x-api-key header or Authorization: Bearer is required' };
  if (!isObject(body)) return invalid('The request body is not valid JSON.');
  const fields = version === '2023-06-01' ? new Set([...BODY_FIELDS, ...SAMPLING]) : BODY_FIELDS;
  const extra = Object.keys(body).find((key) => !fields.has(key));
  if (extra !== undefined) return invalid(`${extra}: Extra inputs are not permitted`);
  for (const required of ['model', 'messages', 'max_tokens']) if (body[required] === undefined) return invalid(`${required}: Field required`);
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) return invalid('max_tokens: Input should be greater than or equal to 1');
  if (body.stop_sequences !== undefined && !(Array.isArray(body.stop_sequences) && body.stop_sequences.every((s) => typeof s === 'string'))) return invalid('stop_sequences: Input should be a valid list');
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) return invalid('system: Input should be a valid string');
  const problem = messagesProblem(body.messages) ?? toolsProblem(body) ?? outputProblem(body.output_config);
  return problem === undefined ? undefined : invalid(problem);
}

function messagesProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: Input should be a valid dictionary`;
    if (message.role !== 'user' && message.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const content = message.content;
    if (typeof content === 'string') continue;
    if (!Array.isArray(content)) return `messages.${i}.content: Input should be a valid string or list`;
    for (const [j, block] of content.entries()) {
      if (!isObject(block) || !BLOCK_TYPES.has(block.type as string)) return `messages.${i}.content.${j}: Input tag '${isObject(block) ? String(block.type) : ''}' found using 'type' does not match any of the expected tags`;
      if (block.type === 'image') {
        const source = block.source;
        if (!isObject(source) || !['base64', 'url', 'file'].includes(source.type as string)) return `messages.${i}.content.${j}.source: Input tag does not match any of the expected tags: 'base64', 'url', 'file'`;
      }
      if (block.type === 'tool_use' && message.role !== 'assistant') return `messages.${i}.content.${j}: tool_use blocks may only appear in assistant messages`;
      if (block.type === 'tool_use' && !isObject(block.input)) return `messages.${i}.content.${j}.input: Input should be a valid dictionary`;
      if (block.type === 'tool_result' && message.role !== 'user') return `messages.${i}.content.${j}: tool_result blocks may only appear in user messages`;
    }
  }
  return toolPairingProblem(messages as { role: string; content: unknown }[]);
}

const blocksOf = (message: { content: unknown } | undefined, type: string) => (message && Array.isArray(message.content) ? (message.content as Json[]).filter((b) => b.type === type) : []);

/** The tool use guide's pairing rule, in both directions, with the API's own messages. */
function toolPairingProblem(messages: { role: string; content: unknown }[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    const results = blocksOf(message, 'tool_result').map((b) => b.tool_use_id as string);
    const asked = new Set(blocksOf(messages[i - 1], 'tool_use').map((b) => b.id as string));
    const stray = results.filter((id) => !asked.has(id));
    if (stray.length > 0) return `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    const uses = blocksOf(message, 'tool_use').map((b) => b.id as string);
    const answered = new Set(blocksOf(messages[i + 1], 'tool_result').map((b) => b.tool_use_id as string));
    const open = uses.filter((id) => !answered.has(id));
    if (open.length > 0) return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${open.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return undefined;
}

function toolsProblem(body: Json): string | undefined {
  const tools = body.tools;
  if (tools !== undefined && !Array.isArray(tools)) return 'tools: Input should be a valid list';
  const names = new Set<string>();
  for (const [i, tool] of (tools ?? []).entries()) {
    if (!isObject(tool) || typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
    const extra = Object.keys(tool).find((key) => !['name', 'description', 'input_schema', 'cache_control', 'type', 'strict'].includes(key));
    if (extra) return `tools.${i}.custom.${extra}: Extra inputs are not permitted`;
    if (!isObject(tool.input_schema)) return `tools.${i}.custom.input_schema: Field required`;
    if (tool.input_schema.type !== 'object') return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
    names.add(tool.name);
  }
  const choice = body.tool_choice;
  if (choice === undefined) return undefined;
  if (!isObject(choice) || !['auto', 'any', 'tool', 'none'].includes(choice.type as string)) return "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'";
  if (choice.type === 'tool' && !names.has(choice.name as string)) return `tool_choice: the tool ${String(choice.name)} is not among the tools`;
  return undefined;
}

function outputProblem(config: unknown): string | undefined {
  if (config === undefined) return undefined;
  if (!isObject(config)) return 'output_config: Input should be a valid dictionary';
  const format = config.format;
  if (format === undefined || format === null) return undefined;
  if (!isObject(format) || format.type !== 'json_schema') return "output_config.format.type: Input should be 'json_schema'";
  if (!isObject(format.schema)) return 'output_config.format.schema: Field required';
  const extra = Object.keys(format).find((key) => !['type', 'schema'].includes(key));
  return extra ? `output_config.format.${extra}: Extra inputs are not permitted` : undefined;
}
