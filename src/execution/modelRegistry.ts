import { type CatalogEntry, DEFAULT_MODEL_CATALOG } from '../domain/models/modelCatalog.ts';
import { routeModel } from '../domain/models/modelRoute.ts';

/**
 * The model catalog a process runs with (src/domain/models/modelCatalog.ts): the built-in one with
 * the operator's SEQFLOW_MODEL_CATALOG file over it (merged by the config), and the older
 * SEQFLOW_MODEL_REGISTRY (image types only) over that. A model that is not listed is treated as text-only, with no price.
 */
export interface ModelCapabilities {
  imageMimeTypes: string[];
}

export function createModelRegistry(legacy: Record<string, ModelCapabilities> = {}, catalog: Readonly<Record<string, CatalogEntry>> = DEFAULT_MODEL_CATALOG) {
  const listed = new Map<string, CatalogEntry>(Object.entries(catalog));
  for (const [model, { imageMimeTypes }] of Object.entries(legacy)) {
    const known = listed.get(model);
    listed.set(model, { ...(known ?? { provider: routeModel(model).provider, tools: true, structuredOutput: true, contextWindow: null, inputUsdPerMTok: null, outputUsdPerMTok: null }), imageMimeTypes } as CatalogEntry);
  }
  // `anthropic:claude-sonnet-5-5` is listed as itself, else as the provider's model name. A Map: a model named "constructor" is just unknown.
  const get = (model: string) => listed.get(model) ?? listed.get(routeModel(model).model);
  return {
    /** Whether the model is listed: metrics name only these. */
    knows: (model: string) => get(model) !== undefined,
    entry: get,
    imageMimeTypes: (model: string): string[] => get(model)?.imageMimeTypes ?? [],
    accepts: (model: string, mimeType: string) => (get(model)?.imageMimeTypes ?? []).some((type) => type === mimeType),
    /** Every known model and whether it takes images at all. */
    list: () => [...listed].map(([id, entry]) => ({ id, vision: entry.imageMimeTypes.length > 0 })).sort((a, b) => a.id.localeCompare(b.id)),
    /** The whole catalog, by model name. */
    catalog: () => [...listed].map(([model, entry]) => ({ model, ...entry })).sort((a, b) => a.model.localeCompare(b.model)),
  };
}

export type ModelRegistry = ReturnType<typeof createModelRegistry>;
