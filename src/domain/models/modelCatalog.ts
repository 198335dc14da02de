import { z } from 'zod';
import { IMAGE_MIME_TYPES } from './imageTypes.ts';
import { PROVIDERS, type ProviderName } from './modelRoute.ts';

/**
 * The model catalog: what Seqflow knows of each model, as data. Which provider serves it, which
 * image types it reads (`MODEL_MIME_INCOMPATIBLE` otherwise), whether it calls tools and writes
 * structured output, its context window, and its price in US dollars per million input and output
 * tokens. A price of null is not known here: cost is not computed for that model until the
 * operator's catalog (SEQFLOW_MODEL_CATALOG) gives one. Prices are the providers' list prices for
 * standard requests as this release knows them (null where it does not: the newest Claude models);
 * a price change is a change of this data, and a cost once recorded is never recomputed.
 */
export const catalogEntrySchema = z.strictObject({
  provider: z.enum(PROVIDERS),
  imageMimeTypes: z.array(z.enum(IMAGE_MIME_TYPES)),
  tools: z.boolean(),
  structuredOutput: z.boolean(),
  contextWindow: z.number().int().positive().nullable(),
  inputUsdPerMTok: z.number().nonnegative().nullable(),
  outputUsdPerMTok: z.number().nonnegative().nullable(),
});
export type CatalogEntry = z.infer<typeof catalogEntrySchema>;

/** A catalog file (SEQFLOW_MODEL_CATALOG): entries by model name, each complete or overriding some fields of a known one. */
export const catalogFileSchema = z.record(z.string().min(1).max(200), catalogEntrySchema.partial());
export type CatalogOverrides = z.infer<typeof catalogFileSchema>;

const images = [...IMAGE_MIME_TYPES];
const entry = (provider: ProviderName, contextWindow: number, input: number | null, output: number | null, vision = true, tools = true, structuredOutput = true): CatalogEntry => ({
  provider,
  imageMimeTypes: vision ? images : [],
  tools,
  structuredOutput,
  contextWindow,
  inputUsdPerMTok: input,
  outputUsdPerMTok: output,
});

/** A Gemini model: a context of 1,048,576 tokens; prices are the standard tier's, for prompts up to 200k tokens. */
const gemini = (input: number, output: number): CatalogEntry => ({ ...entry('google', 1_048_576, input, output), imageMimeTypes: images.filter((type) => type !== 'image/gif') });

export const DEFAULT_MODEL_CATALOG: Readonly<Record<string, CatalogEntry>> = {
  'gpt-5': entry('openai', 400_000, 1.25, 10),
  'gpt-5-mini': entry('openai', 400_000, 0.25, 2),
  'gpt-5-nano': entry('openai', 400_000, 0.05, 0.4),
  'gpt-4.1': entry('openai', 1_047_576, 2, 8),
  'gpt-4.1-mini': entry('openai', 1_047_576, 0.4, 1.6),
  'gpt-4.1-nano': entry('openai', 1_047_576, 0.1, 0.4),
  'gpt-4o': entry('openai', 128_000, 2.5, 10),
  'gpt-4o-mini': entry('openai', 128_000, 0.15, 0.6),
  'gpt-4-turbo': entry('openai', 128_000, 10, 30, true, true, false),
  'gpt-3.5-turbo': entry('openai', 16_385, 0.5, 1.5, false, true, false),
  o3: entry('openai', 200_000, 2, 8),
  'o4-mini': entry('openai', 200_000, 1.1, 4.4),
  'o3-mini': entry('openai', 200_000, 1.1, 4.4, false),
  // Anthropic's current models (its SDK's list, less those it names deprecated); prices where published to us.
  'claude-opus-5-5': entry('anthropic', 200_000, null, null),
  'claude-sonnet-5-5': entry('anthropic', 200_000, null, null),
  'claude-haiku-5-5': entry('anthropic', 200_000, null, null),
  'claude-opus-5': entry('anthropic', 200_000, null, null),
  'claude-sonnet-5': entry('anthropic', 200_000, null, null),
  'claude-opus-4-8': entry('anthropic', 200_000, null, null),
  'claude-opus-4-7': entry('anthropic', 200_000, null, null),
  'claude-opus-4-6': entry('anthropic', 200_000, 5, 25),
  'claude-sonnet-4-6': entry('anthropic', 200_000, 3, 15),
  'claude-haiku-4-5': entry('anthropic', 200_000, 1, 5),
  // Google's current Gemini models; Gemini reads PNG, JPEG, WebP, HEIC and HEIF images (no GIF).
  'gemini-3.5-flash': gemini(1.5, 9),
  'gemini-3.1-pro': gemini(2, 12),
  'gemini-3.1-flash-lite': gemini(0.25, 1.5),
  'gemini-3-flash': gemini(0.5, 3),
  'gemini-2.5-pro': gemini(1.25, 10),
  'gemini-2.5-flash': gemini(0.3, 2.5),
  'gemini-2.5-flash-lite': gemini(0.1, 0.4),
};

/**
 * The catalog with the operator's entries: a known model's fields overridden one by one, a new
 * model given in full. Answers the catalog, or the first entry that names a new model without all
 * its fields (the operator must say what it is).
 */
export function mergeCatalog(overrides: CatalogOverrides, base: Readonly<Record<string, CatalogEntry>> = DEFAULT_MODEL_CATALOG): { catalog: Record<string, CatalogEntry> } | { problem: string } {
  const catalog: Record<string, CatalogEntry> = { ...base };
  for (const [model, fields] of Object.entries(overrides)) {
    const known = Object.hasOwn(catalog, model) ? catalog[model] : undefined;
    const merged = catalogEntrySchema.safeParse({ ...known, ...fields });
    if (!merged.success) return { problem: `${model}: a model not in the built-in catalog needs every field (${Object.keys(catalogEntrySchema.shape).join(', ')}); ${merged.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
    catalog[model] = merged.data;
  }
  return { catalog };
}

/** US dollars summed and rounded to a millionth of a dollar: what a sum of many small calls can carry without drift. */
export const sumUsd = (amounts: readonly number[]): number => Math.round(amounts.reduce((sum, usd) => sum + usd, 0) * 1_000_000) / 1_000_000;

/** What `tokens` of `model` cost in US dollars, or null when the catalog has no price for it. */
export function costUsd(entry: CatalogEntry | undefined, usage: { promptTokens: number; completionTokens: number }): number | null {
  if (!entry || entry.inputUsdPerMTok === null || entry.outputUsdPerMTok === null) return null;
  // Rounded to a millionth of a dollar: what a sum of many small calls can carry without drift.
  return Math.round(usage.promptTokens * entry.inputUsdPerMTok + usage.completionTokens * entry.outputUsdPerMTok) / 1_000_000;
}
