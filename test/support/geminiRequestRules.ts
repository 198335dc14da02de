/**
 * What Gemini's generateContent (v1beta) refuses among the requests Seqflow sends, so the scripted
 * Gemini server refuses them too: from the API reference (GenerateContentRequest, GenerationConfig,
 * Content, Part, Tool, ToolConfig: the API parses JSON into these messages and refuses any field
 * they lack), the function calling guide (a function call turn follows a user or function response
 * turn; as many responses as calls; Gemini 3 models refuse the current turn's calls without their
 * `thoughtSignature`) and the image understanding guide (PNG, JPEG, WebP, HEIC, HEIF). Returns the
 * refusal's status, gRPC status name and message, or undefined.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const REQUEST_FIELDS = ['contents', 'systemInstruction', 'tools', 'toolConfig', 'safetySettings', 'generationConfig', 'cachedContent', 'serviceTier'];
const GENERATION_FIELDS = [
  'stopSequences', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'responseModalities', 'candidateCount', 'maxOutputTokens', 'temperature',
  'topP', 'topK', 'seed', 'presencePenalty', 'frequencyPenalty', 'responseLogprobs', 'logprobs', 'enableEnhancedCivicAnswers', 'speechConfig', 'thinkingConfig',
  'imageConfig', 'mediaResolution',
];
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];
const PART_FIELDS = [...PART_DATA, 'thought', 'thoughtSignature', 'videoMetadata', 'partMetadata', 'mediaResolution'];
const DECLARATION_FIELDS = ['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior'];
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'];
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;

export interface GeminiRefusal {
  status: number;
  grpc: string;
  message: string;
}

const invalid = (message: string): GeminiRefusal => ({ status: 400, grpc: 'INVALID_ARGUMENT', message });
const unknownField = (name: string, at?: string) => invalid(`Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`);
const extraOf = (value: Json, allowed: string[]) => Object.keys(value).find((key) => !allowed.includes(key));

export function geminiRefusal(model: string, headers: Record<string, string | string[] | undefined>, body: unknown): GeminiRefusal | undefined {
  if (typeof headers['x-goog-api-key'] !== 'string' || headers['x-goog-api-key'] === '') {
    return { status: 403, grpc: 'PERMISSION_DENIED', message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API." };
  }
  if (!isObject(body)) return invalid('Invalid JSON payload received.');
  const extra = extraOf(body, REQUEST_FIELDS);
  if (extra !== undefined) return unknownField(extra);
  return generationProblem(body.generationConfig) ?? contentsProblem(model, body.contents) ?? toolsProblem(body) ?? systemProblem(body.systemInstruction);
}

function generationProblem(config: unknown): GeminiRefusal | undefined {
  if (config === undefined) return undefined;
  if (!isObject(config)) return invalid("Invalid value at 'generation_config'");
  const extra = extraOf(config, GENERATION_FIELDS);
  if (extra !== undefined) return unknownField(extra, 'generation_config');
  if (Array.isArray(config.stopSequences) && config.stopSequences.length > 5) return invalid('* GenerateContentRequest.generation_config.stop_sequences: at most 5 stop sequences');
  if (config.responseSchema !== undefined && config.responseJsonSchema !== undefined) return invalid('responseSchema and responseJsonSchema cannot both be set');
  if ((config.responseSchema !== undefined || config.responseJsonSchema !== undefined) && config.responseMimeType !== 'application/json' && config.responseMimeType !== 'text/x.enum') {
    return invalid('* GenerateContentRequest.generation_config.response_mime_type: response_mime_type must be application/json or text/x.enum when a response schema is set');
  }
  for (const key of ['temperature', 'topP', 'maxOutputTokens', 'seed']) if (config[key] !== undefined && typeof config[key] !== 'number') return invalid(`Invalid value at 'generation_config.${key}'`);
  return undefined;
}

function partProblem(part: unknown, at: string): GeminiRefusal | undefined {
  if (!isObject(part)) return invalid(`Invalid value at '${at}'`);
  const extra = extraOf(part, PART_FIELDS);
  if (extra !== undefined) return unknownField(extra, at);
  const data = PART_DATA.filter((key) => part[key] !== undefined);
  if (data.length !== 1) return invalid(`* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field`);
  const file = part.fileData;
  if (file !== undefined) {
    if (!isObject(file) || typeof file.fileUri !== 'string') return invalid(`* GenerateContentRequest.${at}.file_data.file_uri: file_uri is required`);
    if (typeof file.mimeType !== 'string') return invalid(`* GenerateContentRequest.${at}.file_data.mime_type: mime_type is required`);
    if (file.mimeType.startsWith('image/') && !IMAGE_TYPES.includes(file.mimeType)) return invalid(`Unsupported MIME type: ${file.mimeType}`);
  }
  if (part.functionCall !== undefined && (!isObject(part.functionCall) || typeof part.functionCall.name !== 'string')) return invalid(`* GenerateContentRequest.${at}.function_call.name: name is required`);
  const response = part.functionResponse;
  if (response !== undefined && (!isObject(response) || typeof response.name !== 'string' || !isObject(response.response))) return invalid(`* GenerateContentRequest.${at}.function_response: name and response are required`);
  return undefined;
}

const partsOf = (content: Json) => (content.parts as Json[]).filter(isObject);
const calls = (content: Json | undefined) => (content ? partsOf(content).filter((p) => p.functionCall !== undefined) : []);
const responses = (content: Json | undefined) => (content ? partsOf(content).filter((p) => p.functionResponse !== undefined) : []);

function contentsProblem(model: string, contents: unknown): GeminiRefusal | undefined {
  if (!Array.isArray(contents) || contents.length === 0) return invalid('* GenerateContentRequest.contents: contents is not specified');
  for (const [i, content] of contents.entries()) {
    if (!isObject(content)) return invalid(`Invalid value at 'contents[${i}]'`);
    const extra = extraOf(content, ['role', 'parts']);
    if (extra !== undefined) return unknownField(extra, `contents[${i}]`);
    if (content.role !== 'user' && content.role !== 'model') return invalid('Please use a valid role: user, model.');
    if (!Array.isArray(content.parts) || content.parts.length === 0) return invalid(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`);
    for (const [j, part] of content.parts.entries()) {
      const problem = partProblem(part, `contents[${i}].parts[${j}]`);
      if (problem) return problem;
    }
  }
  return turnsProblem(model, contents as Json[]);
}

/** The function calling guide's turn rules, and Gemini 3's thought signatures on the current turn's calls. */
function turnsProblem(model: string, contents: Json[]): GeminiRefusal | undefined {
  for (const [i, content] of contents.entries()) {
    const asked = calls(content);
    if (asked.length === 0) continue;
    const before = contents[i - 1];
    if (!before || before.role !== 'user') return invalid('Please ensure that function call turn comes immediately after a user turn or after a function response turn.');
    const answered = responses(contents[i + 1]);
    if (i + 1 < contents.length && answered.length !== asked.length) return invalid('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
  }
  if (!model.startsWith('gemini-3')) return undefined;
  // The current turn: everything after the last user content that is not function responses.
  const start = contents.findLastIndex((c) => c.role === 'user' && responses(c).length === 0);
  for (const [i, content] of contents.entries()) {
    if (i <= start || content.role !== 'model') continue;
    const first = calls(content)[0];
    if (first && typeof first.thoughtSignature !== 'string') {
      const name = String((first.functionCall as Json).name);
      return invalid(`Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`);
    }
  }
  return undefined;
}

function toolsProblem(body: Json): GeminiRefusal | undefined {
  const names = new Set<string>();
  const tools = body.tools;
  if (tools !== undefined && !Array.isArray(tools)) return invalid("Invalid value at 'tools'");
  for (const [i, tool] of (tools ?? []).entries()) {
    if (!isObject(tool)) return invalid(`Invalid value at 'tools[${i}]'`);
    const extra = extraOf(tool, ['functionDeclarations', 'googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext', 'fileSearch', 'googleMaps', 'computerUse']);
    if (extra !== undefined) return unknownField(extra, `tools[${i}]`);
    for (const [j, declaration] of ((tool.functionDeclarations as unknown[]) ?? []).entries()) {
      if (!isObject(declaration)) return invalid(`Invalid value at 'tools[${i}].function_declarations[${j}]'`);
      const extraField = extraOf(declaration, DECLARATION_FIELDS);
      if (extraField !== undefined) return unknownField(extraField, `tools[${i}].function_declarations[${j}]`);
      if (typeof declaration.name !== 'string' || !FUNCTION_NAME.test(declaration.name)) return invalid(`* GenerateContentRequest.tools[${i}].function_declarations[${j}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 128.`);
      if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) return invalid(`* GenerateContentRequest.tools[${i}].function_declarations[${j}]: parameters and parameters_json_schema cannot both be set`);
      names.add(declaration.name);
    }
  }
  return toolConfigProblem(body.toolConfig, names);
}

function toolConfigProblem(toolConfig: unknown, names: Set<string>): GeminiRefusal | undefined {
  if (toolConfig === undefined) return undefined;
  if (!isObject(toolConfig)) return invalid("Invalid value at 'tool_config'");
  const extra = extraOf(toolConfig, ['functionCallingConfig', 'retrievalConfig']);
  if (extra !== undefined) return unknownField(extra, 'tool_config');
  const config = toolConfig.functionCallingConfig;
  if (config === undefined) return undefined;
  if (!isObject(config) || !['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED'].includes(config.mode as string)) return invalid(`Invalid value at 'tool_config.function_calling_config.mode'`);
  const allowed = config.allowedFunctionNames;
  if (allowed !== undefined) {
    if (config.mode !== 'ANY' && config.mode !== 'VALIDATED') return invalid('* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: only allowed when mode is ANY or VALIDATED');
    const unknown = (allowed as string[]).find((name) => !names.has(name));
    if (unknown !== undefined) return invalid(`* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: ${unknown} is not a declared function`);
  }
  return undefined;
}

function systemProblem(system: unknown): GeminiRefusal | undefined {
  if (system === undefined) return undefined;
  if (!isObject(system) || !Array.isArray(system.parts)) return invalid("Invalid value at 'system_instruction'");
  return system.parts.map((part, j) => partProblem(part, `system_instruction.parts[${j}]`)).find((problem) => problem !== undefined);
}
