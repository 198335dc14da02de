import { z } from 'zod';

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

/** What a model of `family` refuses among `settings`, each naming the setting and what to do instead. */
export function llmSettingsProblems(model: string, settings: LlmSettings): string[] {
  const family = modelFamily(model);
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
 * The name each model setting goes out under, by model family; `null` for the system prompt,
 * which is a message. The compiler wants an entry for every key of `llmSettingsShape`, and only
 * these keys are ever read, so a Seqflow setting of the block (`tools_enabled`, `max_tool_iterations`,
 * `receive_attachments`, any future one) can never reach a provider: OpenAI and Azure refuse an
 * unknown argument with `400 Unrecognized request argument supplied`.
 */
const SENT_AS: { [K in keyof LlmSettings]-?: ((family: ModelFamily) => string) | null } = {
  system_prompt: null,
  temperature: () => 'temperature',
  top_p: () => 'top_p',
  max_tokens: (family) => (family === 'reasoning' ? 'max_completion_tokens' : 'max_tokens'),
  seed: () => 'seed',
  stop: () => 'stop',
  reasoning_effort: () => 'reasoning_effort',
};

/**
 * The request parameters of a block's `processor_config` for `model`: only its model settings that
 * are set, each under the name the model family takes; nothing else of the config.
 */
export function llmRequestParameters(model: string, config: LlmSettings): Record<string, unknown> {
  const family = modelFamily(model);
  const parameters: Record<string, unknown> = {};
  for (const [key, sentAs] of Object.entries(SENT_AS) as [keyof LlmSettings, ((family: ModelFamily) => string) | null][]) {
    const value = config[key];
    if (sentAs && value !== undefined) parameters[sentAs(family)] = value;
  }
  return parameters;
}
