import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_CATALOG, costUsd, mergeCatalog } from '../../src/domain/models/modelCatalog.ts';
import { routeModel } from '../../src/domain/models/modelRoute.ts';

describe('the model catalog', () => {
  it('overrides a known model field by field, and takes a new model only in full', () => {
    const merged = mergeCatalog({ 'gpt-4o-mini': { inputUsdPerMTok: 0.1 } });
    expect('catalog' in merged && merged.catalog['gpt-4o-mini']).toEqual({ ...DEFAULT_MODEL_CATALOG['gpt-4o-mini'], inputUsdPerMTok: 0.1 });
    expect(mergeCatalog({ 'my-model': { provider: 'compatible', tools: true } })).toEqual({ problem: expect.stringMatching(/^my-model: a model not in the built-in catalog needs every field .*imageMimeTypes/) });
    // A model named like an Object.prototype member is a model like any other.
    expect('catalog' in mergeCatalog({ constructor: { tools: false } })).toBe(false);
  });

  it('costs a call from its tokens and the prices per million, and none without a price', () => {
    expect(costUsd(DEFAULT_MODEL_CATALOG['gpt-4o-mini'], { promptTokens: 1_000_000, completionTokens: 500_000 })).toBe(0.45);
    expect(costUsd(DEFAULT_MODEL_CATALOG['claude-haiku-4-5'], { promptTokens: 10, completionTokens: 5 })).toBe(0.000035);
    expect(costUsd(DEFAULT_MODEL_CATALOG['claude-opus-5'], { promptTokens: 10, completionTokens: 5 })).toBeNull();
    expect(costUsd(undefined, { promptTokens: 10, completionTokens: 5 })).toBeNull();
  });

  it('lists every built-in model under the provider its name routes to', () => {
    for (const [model, entry] of Object.entries(DEFAULT_MODEL_CATALOG)) expect(routeModel(model).provider, model).toBe(entry.provider);
  });
});

describe('routing a block\'s model to its provider', () => {
  it.each([
    ['claude-haiku-4-5', 'anthropic', 'claude-haiku-4-5'],
    ['anthropic:claude-haiku-4-5', 'anthropic', 'claude-haiku-4-5'],
    ['gpt-4.1-mini', 'openai', 'gpt-4.1-mini'],
    ['o4-mini', 'openai', 'o4-mini'],
    ['azure:prod-gpt', 'azure', 'prod-gpt'],
    ['compatible:llama3:8b', 'compatible', 'llama3:8b'],
    ['gemini-2.5-flash', 'google', 'gemini-2.5-flash'],
    ['google:gemini-3.5-flash', 'google', 'gemini-3.5-flash'],
    // An Ollama tag is not a provider; an unknown family goes to the default provider.
    ['llama3:8b', 'openai', 'llama3:8b'],
    ['mistral-large', 'openai', 'mistral-large'],
  ])('%s goes to %s as %s', (model, provider, name) => {
    expect(routeModel(model)).toMatchObject({ provider, model: name });
  });
});
