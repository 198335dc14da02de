import { z } from 'zod';
import { type ProviderName, routeModel } from '../../models/modelRoute.ts';

/**
 * The settings of an llm block users expect (in `processor_config`), as the chat completions API
 * takes them. Ranges are the API's own, so a draft is refused where the provider would refuse it.
 */
export const llmSettingsShape = {
  /** Sent as the first (system) message; templated like the prompt. */
  system_prompt: z.string().max(100_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  /** The reply's length limit: `max_tokens`, or `max_completion_tokens` for reasoning models (which count their reasoning too). */
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  seed: z.number().int().optional(),
  /** Up to 4 sequences where the reply stops. */
  stop: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(4)]).optional(),
  reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
};

export type LlmSettings = { [K in keyof typeof llmSettingsShape]?: z.infer<(typeof llmSettingsShape)[K]> };

/**
 * A model's family by its name, as OpenAI names them: reasoning models (o1, o3, o4-mini, gpt-5...)
 * take `max_completion_tokens` and `reasoning_effort` but no sampling settings or stop sequences;
 * chat models (gpt-4o, gpt-4.1, gpt-3.5...) the reverse. Any other name (an OpenAI-compatible
 * server's model) is sent what the block says, as the block says it.
 */
export type ModelFamily = 'reasoning' | 'chat' | 'other';

export function modelFamily(model: string): ModelFamily {
  if (/^(o\d|gpt-5)/.test(model)) return 'reasoning';
  if (/^(gpt-4|gpt-3\.5|chatgpt-)/.test(model)) return 'chat';
  return 'other';
}

/** What the model's provider refuses among `settings`, each naming the setting and what to do instead. */
export function llmSettingsProblems(model: string, settings: LlmSettings): string[] {
  const route = routeModel(model);
  if (route.provider === 'anthropic') return anthropicProblems(route.model, settings);
  if (route.provider === 'google') return googleProblems(route.model, settings);
  if (route.provider === 'compatible') return [];
  // An Azure deployment runs an OpenAI model: its family's rules, as its name tells (a custom name tells nothing).
  const family = modelFamily(route.model);
  const problems: string[] = [];
  if (family === 'reasoning') {
    if (settings.temperature !== undefined && settings.temperature !== 1) problems.push(`temperature: ${model} is a reasoning model and takes only the default temperature (1): remove it (reasoning_effort steers it instead)`);
    if (settings.top_p !== undefined) problems.push(`top_p: ${model} is a reasoning model and takes no top_p: remove it`);
    if (settings.stop !== undefined) problems.push(`stop: ${model} is a reasoning model and takes no stop sequences: remove them`);
  }
  if (family === 'chat' && settings.reasoning_effort !== undefined) problems.push(`reasoning_effort: ${model} is not a reasoning model: remove it, or use a reasoning model (o3, o4-mini, gpt-5...)`);
  return problems;
}

/**
 * Anthropic's Messages API as of its version 2026-10-21 (what its SDK sends): no sampling settings
 * at all (temperature, top_p, top_k are refused, even at their defaults), no seed, no reasoning_effort.
 */
function anthropicProblems(model: string, settings: LlmSettings): string[] {
  const refused = (['temperature', 'top_p', 'seed', 'reasoning_effort'] as const).filter((key) => settings[key] !== undefined);
  return refused.map((key) => `${key}: ${model} (Anthropic, API version 2026-10-21) takes no ${key}: remove it`);
}

/** Gemini's generateContent: its generationConfig has no reasoning_effort (thinking is configured otherwise). */
function googleProblems(model: string, settings: LlmSettings): string[] {
  return settings.reasoning_effort === undefined ? [] : [`reasoning_effort: ${model} (Google Gemini) takes no reasoning_effort: remove it`];
}

/**
 * The name each model setting goes out under, by provider and model family; `null` where it is not
 * sent (the system prompt is a message, or a field of its own). The compiler wants an entry for
 * every key of `llmSettingsShape`, and only these keys are ever read, so a Seqflow setting of the
 * block (`tools_enabled`, `max_tool_iterations`, `receive_attachments`, any future one) can never
 * reach a provider: OpenAI and Azure refuse an unknown argument with `400 Unrecognized request
 * argument supplied`, Anthropic with `Extra inputs are not permitted`, Gemini with `Unknown name`.
 * Gemini's names are its generationConfig's (camelCase): its translation puts them there.
 */
type Target = { provider: ProviderName; family: ModelFamily };
const SENT_AS: { [K in keyof LlmSettings]-?: ((target: Target) => string | null) | null } = {
  system_prompt: null,
  temperature: ({ provider }) => (provider === 'anthropic' ? null : 'temperature'),
  top_p: ({ provider }) => (provider === 'anthropic' ? null : provider === 'google' ? 'topP' : 'top_p'),
  max_tokens: ({ provider, family }) => (provider === 'google' ? 'maxOutputTokens' : provider === 'openai' && family === 'reasoning' ? 'max_completion_tokens' : 'max_tokens'),
  seed: ({ provider }) => (provider === 'anthropic' ? null : 'seed'),
  stop: ({ provider }) => (provider === 'anthropic' ? 'stop_sequences' : provider === 'google' ? 'stopSequences' : 'stop'),
  reasoning_effort: ({ provider }) => (provider === 'anthropic' || provider === 'google' ? null : 'reasoning_effort'),
};

/**
 * The request parameters of a block's `processor_config` for `model`: only its model settings that
 * are set, each under the name the model's provider takes (Anthropic's stop sequences a list);
 * nothing else of the config.
 */
export function llmRequestParameters(model: string, config: LlmSettings): Record<string, unknown> {
  const route = routeModel(model);
  const target = { provider: route.provider, family: modelFamily(route.model) };
  const parameters: Record<string, unknown> = {};
  for (const [key, sentAs] of Object.entries(SENT_AS) as [keyof LlmSettings, ((target: Target) => string | null) | null][]) {
    const value = config[key];
    const name = sentAs?.(target);
    if (name && value !== undefined) parameters[name] = (name === 'stop_sequences' || name === 'stopSequences') && typeof value === 'string' ? [value] : value;
  }
  return parameters;
}
