import { PROVIDER_SETTINGS, routeModel } from '../../models/modelRoute.ts';
import { secretsNamedIn, stepsNamedIn } from '../../templating/template.ts';
import type { BlockKind } from '../blockKind.ts';
import { llmConfigShape } from './llmConfig.ts';
import { llmSettingsProblems, llmSettingsShape } from './llmSettings.ts';
import { serverToolProblems, serverToolSecretProblems, serverToolTemplates } from './serverTools.ts';

const settingKeys = Object.keys(llmSettingsShape) as (keyof typeof llmSettingsShape)[];

/**
 * `llm`: a prompt (templated) sent to a model, its reply the step's output (JSON when the block has
 * an `output_schema`); it may ask the caller for tools, receives the request's images, and falls
 * back to other models when its provider fails. Run by src/execution/blocks/llmRunner.ts.
 */
export const llmKind: BlockKind<typeof llmConfigShape> = {
  fields: ['prompt', 'model', 'output_schema'],
  configShape: llmConfigShape,
  draftText: { field: 'prompt', described: 'the prompt of an llm block' },
  callsTools: true,
  standsAlone: false,
  receivesAttachments: (block) => block.processor_config?.receive_attachments !== false,
  fieldProblems(block, path) {
    const problems: string[] = [];
    if (!block.prompt?.trim()) problems.push(`${path}.prompt: llm blocks need a prompt`);
    // A prompt goes to the model and into the run's record: a secret there would be read back.
    const prompts = [{ at: `${path}.prompt`, text: block.prompt ?? '' }, { at: `${path}.processor_config.system_prompt`, text: block.processor_config?.system_prompt ?? '' }];
    for (const { at, text } of prompts) {
      for (const name of new Set(secretsNamedIn(text))) problems.push(`${at}: {{secrets.${name}}}: secrets go only in an http request's URL and headers, never in a prompt`);
    }
    // A block without a model runs on the service's default, known only when it runs (checked then).
    if (block.model && block.processor_config) {
      problems.push(...llmSettingsProblems(block.model, block.processor_config).map((problem) => `${path}.processor_config.${problem}`));
    }
    if (block.processor_config?.server_tools) problems.push(...serverToolProblems(block.processor_config.server_tools, `${path}.processor_config.server_tools`));
    // A fallback takes the block's settings too: each must be able to.
    for (const fallback of block.processor_config?.fallback_models ?? []) {
      problems.push(...llmSettingsProblems(fallback, block.processor_config ?? {}).map((problem) => `${path}.processor_config.fallback_models (${fallback}): ${problem}`));
    }
    return problems;
  },
  foreignUse(block, path) {
    const problems: string[] = [];
    if (block.processor_config?.tools_enabled) problems.push(`${path}.processor_config.tools_enabled: only llm blocks can call tools`);
    const settings = settingKeys.filter((key) => block.processor_config?.[key] !== undefined);
    if (settings.length > 0) problems.push(`${path}.processor_config: ${settings.join(', ')}: only llm blocks take model settings`);
    for (const _fallback of block.processor_config?.fallback_models ?? []) problems.push(`${path}.processor_config.fallback_models: only llm blocks have models to fall back from`);
    if (block.processor_config?.server_tools) problems.push(`${path}.processor_config.server_tools: only llm blocks offer tools to a model`);
    return problems;
  },
  contextProblems(block, path, { providers, secrets }) {
    const tools = block.processor_config?.server_tools;
    const unknownSecrets = tools && secrets ? serverToolSecretProblems(tools, `${path}.processor_config.server_tools`, secrets) : [];
    if (!providers) return unknownSecrets;
    const named = [...(block.model ? [{ model: block.model, at: `${path}.model` }] : []), ...(block.processor_config?.fallback_models ?? []).map((model) => ({ model, at: `${path}.processor_config.fallback_models (${model})` }))];
    const unrouted = named.flatMap(({ model, at }) => {
      const { provider } = routeModel(model);
      if (provider === 'openai' || providers.includes(provider)) return [];
      return [`${at}: ${model} goes to the provider ${provider}, which this service has no account with: set ${PROVIDER_SETTINGS[provider]}, or choose a model of a configured provider`];
    });
    return [...unrouted, ...unknownSecrets];
  },
  // Its prompt's are read by stepReferences.ts; its server tools' requests may read earlier blocks too.
  references: (block) => ({ names: serverToolTemplates(block.processor_config?.server_tools ?? []).flatMap(stepsNamedIn), all: false }),
  draftWarnings(block, at, placeholders, knowsModel) {
    return [
      ...(block.prompt?.trim() ? [] : [`${at} has no prompt: an llm block needs one before the flow can be published.`]),
      ...placeholders,
      ...(block.model !== null && !knowsModel(block.model) ? [`${at} uses the model '${block.model}', which the service does not know: it is sent to the provider as named and treated as text-only (hydrate_project lists the known models).`] : []),
    ];
  },
  stepView(input) {
    const llm = input as { prompt?: string; systemPrompt?: string; settings?: Record<string, unknown>; responseFormat?: unknown };
    return { prompt: llm.prompt ?? null, systemPrompt: llm.systemPrompt ?? null, settings: llm.settings ?? null, responseFormat: llm.responseFormat ?? null, input: null };
  },
  mcpHints: {
    adding:
      'llm blocks need a prompt ({{message}}, {{parameters.x}}, {{previous_output}} placeholders, and {{steps.<block>.output.field}} for any block of an earlier step), and may take an output_schema (a JSON Schema of type object: the reply is then that JSON) and processor_config (model settings, tools_enabled...), set in the same edit. processor_config.server_tools lists tools the service runs itself without pausing: {type: "http", name, description, parameters (a JSON Schema), request {method, url, headers, body} with {{arguments.x}} from the call and {{secrets.<name>}} in the URL and headers}, or {type: "mcp", url, allowed_tools, and headers {authorization: "Bearer {{secrets.<name>}}"} or oauth {tokens: <the secret holding its OAuth client and tokens>}}.',
    editing: '',
  },
};
