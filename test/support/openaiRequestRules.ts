/**
 * What OpenAI's chat completions API refuses with HTTP 400 among the requests Seqflow sends, so
 * the scripted model server refuses them too (from the API reference and the Structured Outputs,
 * function calling, vision and reasoning guides). Returns the refusal message, or undefined.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Keywords Structured Outputs' strict mode does not support ("Supported schemas"). */
const STRICT_UNSUPPORTED = [
  'allOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'oneOf',
  'patternProperties', 'unevaluatedProperties', 'propertyNames', 'minProperties', 'maxProperties',
  'minLength', 'maxLength', 'unevaluatedItems', 'contains', 'minContains', 'maxContains', 'uniqueItems', 'prefixItems',
];
const REASONING_MODEL = /^(o\d|gpt-5)/;

/**
 * Every argument the chat completions API reference documents for a request body; anything else is
 * refused with `400 Unrecognized request argument supplied` (OpenAI and Azure OpenAI alike).
 */
const DOCUMENTED_ARGUMENTS = new Set([
  'messages', 'model', 'audio', 'frequency_penalty', 'function_call', 'functions', 'logit_bias', 'logprobs',
  'max_completion_tokens', 'max_tokens', 'metadata', 'modalities', 'n', 'parallel_tool_calls', 'prediction',
  'presence_penalty', 'prompt_cache_key', 'prompt_cache_retention', 'reasoning_effort', 'response_format',
  'safety_identifier', 'seed', 'service_tier', 'stop', 'store', 'stream', 'stream_options', 'temperature',
  'tool_choice', 'tools', 'top_logprobs', 'top_p', 'user', 'verbosity', 'web_search_options',
]);
const VISION_MODEL = /^(gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|o3|o4-mini)/;

export function refusalOf(body: unknown): string | undefined {
  if (!isObject(body)) return 'We could not parse the JSON body of your request.';
  const unknown = Object.keys(body).find((name) => !DOCUMENTED_ARGUMENTS.has(name));
  if (unknown !== undefined) return `Unrecognized request argument supplied: ${unknown}`;
  if (typeof body.model !== 'string' || !body.model) return "you must provide a model parameter";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "Invalid 'messages': empty array. Expected an array with minimum length 1.";
  if (body.stream_options !== undefined && body.stream !== true) return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  if (isObject(body.stream_options)) {
    const extra = Object.keys(body.stream_options).find((key) => !['include_usage', 'include_obfuscation'].includes(key));
    if (extra !== undefined) return `Unrecognized request argument supplied: stream_options.${extra}`;
  }
  return samplingRefusal(body) ?? reasoningRefusal(body) ?? toolsRefusal(body) ?? messagesRefusal(body) ?? responseFormatRefusal(body.response_format);
}

/** The ranges and shapes the API reference gives for the sampling and length settings. */
function samplingRefusal(body: Json): string | undefined {
  const range = (name: string, min: number, max: number) => {
    const value = body[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'number') return `Invalid type for '${name}': expected a decimal, but got a ${typeof value} instead.`;
    if (value > max) return `Invalid '${name}': decimal above maximum value. Expected a value <= ${max}, but got ${value} instead.`;
    if (value < min) return `Invalid '${name}': decimal below minimum value. Expected a value >= ${min}, but got ${value} instead.`;
    return undefined;
  };
  const stop = body.stop;
  if (Array.isArray(stop) && stop.length > 4) return `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${stop.length} instead.`;
  for (const name of ['max_tokens', 'max_completion_tokens', 'seed']) {
    if (body[name] !== undefined && !Number.isInteger(body[name])) return `Invalid type for '${name}': expected an integer, but got a decimal number instead.`;
  }
  if (typeof body.max_tokens === 'number' && body.max_tokens < 1) return "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1.";
  if (body.reasoning_effort !== undefined && !['minimal', 'low', 'medium', 'high'].includes(body.reasoning_effort as string)) return "Invalid value for 'reasoning_effort': expected one of 'minimal', 'low', 'medium' or 'high'.";
  if (body.reasoning_effort !== undefined && !REASONING_MODEL.test(body.model as string)) return "Unsupported parameter: 'reasoning_effort' is not supported with this model.";
  return range('temperature', 0, 2) ?? range('top_p', 0, 1);
}

function reasoningRefusal(body: Json): string | undefined {
  if (!REASONING_MODEL.test(body.model as string)) return undefined;
  if ('max_tokens' in body) return "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
  if ('temperature' in body && body.temperature !== 1) return "Unsupported value: 'temperature' does not support this value with this model. Only the default (1) value is supported.";
  for (const p of ['top_p', 'presence_penalty', 'frequency_penalty', 'logprobs', 'stop']) if (p in body) return `Unsupported parameter: '${p}' is not supported with this model.`;
  return undefined;
}

function toolsRefusal(body: Json): string | undefined {
  if (body.tool_choice !== undefined && body.tools === undefined) return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
  if (body.tools === undefined) return undefined;
  if (!Array.isArray(body.tools) || body.tools.length === 0) return "Invalid 'tools': empty array. Expected an array with minimum length 1.";
  if (body.tools.length > 128) return "Invalid 'tools': array too long. Expected an array with maximum length 128.";
  const names = new Set<string>();
  for (const [i, tool] of body.tools.entries()) {
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) return `Invalid value for 'tools[${i}]'.`;
    const fn = tool.function;
    if (typeof fn.name !== 'string' || !NAME.test(fn.name)) return `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
    names.add(fn.name);
    if (fn.parameters !== undefined && (!isObject(fn.parameters) || fn.parameters.type !== 'object')) {
      return `Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"'.`;
    }
    if (fn.strict === true) {
      const problem = strictSchemaProblem(fn.parameters, `function '${fn.name}'`);
      if (problem) return problem;
    }
  }
  const choice = body.tool_choice;
  if (choice !== undefined && !['auto', 'none', 'required'].includes(choice as string)) {
    const name = isObject(choice) && isObject(choice.function) ? choice.function.name : undefined;
    if (typeof name !== 'string' || !names.has(name)) return "Invalid value for 'tool_choice': the tool named in 'tool_choice' is not in 'tools'.";
  }
  return undefined;
}

function messagesRefusal(body: Json): string | undefined {
  const messages = body.messages as unknown[];
  const vision = VISION_MODEL.test(body.model as string);
  let open = new Set<string>();
  for (const [i, message] of messages.entries()) {
    if (!isObject(message) || typeof message.role !== 'string') return `Invalid value for 'messages[${i}]'.`;
    if (message.role !== 'tool' && open.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    }
    if (message.role === 'tool') {
      if (typeof message.tool_call_id !== 'string' || !open.delete(message.tool_call_id)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`;
      }
    }
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      for (const [j, call] of message.tool_calls.entries()) {
        const extra = isObject(call) ? Object.keys(call).find((key) => !['id', 'type', 'function'].includes(key)) : undefined;
        if (extra !== undefined) return `Additional properties are not allowed ('${extra}' was unexpected) - 'messages.${i}.tool_calls.${j}'`;
      }
      open = new Set(message.tool_calls.map((c) => (c as { id: string }).id));
    }
    if (Array.isArray(message.content) && !vision && message.content.some((part) => isObject(part) && part.type === 'image_url')) {
      return 'Invalid content type. image_url is only supported by certain models.';
    }
  }
  if (open.size > 0) return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
  return undefined;
}

function responseFormatRefusal(format: unknown): string | undefined {
  if (format === undefined) return undefined;
  if (!isObject(format) || !['text', 'json_object', 'json_schema'].includes(format.type as string)) return "Invalid value for 'response_format.type'.";
  if (format.type !== 'json_schema') return undefined;
  const spec = format.json_schema;
  if (!isObject(spec) || typeof spec.name !== 'string' || !NAME.test(spec.name)) return "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.";
  if (spec.strict !== true) return undefined;
  return strictSchemaProblem(spec.schema, `response_format '${spec.name}'`);
}

/** Strict mode's rules: an object root, every object closed and fully required, known keywords, limits. */
export function strictSchemaProblem(schema: unknown, where: string): string | undefined {
  const invalid = (why: string) => `Invalid schema for ${where}: In context=(), ${why}`;
  if (!isObject(schema) || schema.type !== 'object' || 'anyOf' in schema) return invalid("schema must be a JSON Schema of 'type: \"object\"', got another type or anyOf at the root.");
  const counts = { properties: 0, enumValues: 0 };
  const visit = (node: unknown, depth: number): string | undefined => {
    if (!isObject(node)) return invalid('every subschema must be an object.');
    if (depth > 10) return invalid('nesting too deep: at most 10 levels.');
    for (const keyword of STRICT_UNSUPPORTED) if (keyword in node) return invalid(`'${keyword}' is not permitted.`);
    if (Array.isArray(node.enum)) counts.enumValues += node.enum.length;
    const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type : [];
    if (types.includes('object') || 'properties' in node) {
      if (node.additionalProperties !== false) return invalid("'additionalProperties' is required to be supplied and to be false.");
      const properties = isObject(node.properties) ? node.properties : {};
      const required = Array.isArray(node.required) ? node.required : [];
      const missing = Object.keys(properties).filter((p) => !required.includes(p));
      if (missing.length > 0) return invalid(`'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0]}'.`);
      counts.properties += Object.keys(properties).length;
      for (const sub of Object.values(properties)) {
        const problem = visit(sub, depth + 1);
        if (problem) return problem;
      }
    }
    const children = [...(isObject(node.items) ? [node.items] : []), ...(Array.isArray(node.anyOf) ? node.anyOf : [])];
    for (const defs of ['$defs', 'definitions']) if (isObject(node[defs])) children.push(...Object.values(node[defs] as Json));
    for (const child of children) {
      const problem = visit(child, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  };
  const problem = visit(schema, 1);
  if (problem) return problem;
  if (counts.properties > 5000) return invalid('more than 5000 object properties in total.');
  if (counts.enumValues > 1000) return invalid('more than 1000 enum values in total.');
  return undefined;
}
