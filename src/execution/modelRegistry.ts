import { ALLOWED_ATTACHMENT_MIME_TYPES } from '../domain/execution/attachment.ts';
import { routeModel } from '../domain/models/modelRoute.ts';

/**
 * Which models accept which image types: data, not code branches. A model that is not listed is
 * treated as text-only unless SEQFLOW_MODEL_REGISTRY lists it (that variable also overrides entries).
 */
export interface ModelCapabilities {
  imageMimeTypes: string[];
}

const allImages = [...ALLOWED_ATTACHMENT_MIME_TYPES];

export const defaultModelRegistry: Record<string, ModelCapabilities> = {
  'gpt-4o': { imageMimeTypes: allImages },
  'gpt-4o-mini': { imageMimeTypes: allImages },
  'gpt-4.1': { imageMimeTypes: allImages },
  'gpt-4.1-mini': { imageMimeTypes: allImages },
  'gpt-4.1-nano': { imageMimeTypes: allImages },
  'gpt-4-turbo': { imageMimeTypes: allImages },
  'gpt-5': { imageMimeTypes: allImages },
  'gpt-5-mini': { imageMimeTypes: allImages },
  'gpt-5-nano': { imageMimeTypes: allImages },
  o3: { imageMimeTypes: allImages },
  'o4-mini': { imageMimeTypes: allImages },
  'gpt-3.5-turbo': { imageMimeTypes: [] },
  'o3-mini': { imageMimeTypes: [] },
  // Anthropic's current models (its SDK's list, less those it names deprecated) read JPEG, PNG, GIF and WebP images.
  'claude-opus-5-5': { imageMimeTypes: allImages },
  'claude-sonnet-5-5': { imageMimeTypes: allImages },
  'claude-haiku-5-5': { imageMimeTypes: allImages },
  'claude-opus-5': { imageMimeTypes: allImages },
  'claude-sonnet-5': { imageMimeTypes: allImages },
  'claude-opus-4-8': { imageMimeTypes: allImages },
  'claude-opus-4-7': { imageMimeTypes: allImages },
  'claude-opus-4-6': { imageMimeTypes: allImages },
  'claude-sonnet-4-6': { imageMimeTypes: allImages },
  'claude-haiku-4-5': { imageMimeTypes: allImages },
};

export function createModelRegistry(overrides: Record<string, ModelCapabilities> = {}) {
  // A Map: a model named "constructor" or "__proto__" is just an unknown model.
  const listed = new Map(Object.entries({ ...defaultModelRegistry, ...overrides }));
  // `anthropic:claude-sonnet-4-5` is listed as itself, else as the provider's model name.
  const models = { has: (model: string) => listed.has(model) || listed.has(routeModel(model).model), get: (model: string) => listed.get(model) ?? listed.get(routeModel(model).model) };
  return {
    /** Whether the model is listed (the default registry or SEQFLOW_MODEL_REGISTRY): metrics name only these. */
    knows: (model: string) => models.has(model),
    imageMimeTypes: (model: string): string[] => models.get(model)?.imageMimeTypes ?? [],
    accepts: (model: string, mimeType: string) => (models.get(model)?.imageMimeTypes ?? []).includes(mimeType),
    /** Every known model and whether it takes images at all. */
    list: () => [...listed].map(([id, capabilities]) => ({ id, vision: capabilities.imageMimeTypes.length > 0 })).sort((a, b) => a.id.localeCompare(b.id)),
  };
}

export type ModelRegistry = ReturnType<typeof createModelRegistry>;
