import { Ajv, type ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';

/**
 * Compiled output-schema validators. Each schema compiles in an Ajv instance of its own: Ajv
 * registers schemas by `$id`, so two flows whose schemas share an `$id` would otherwise clash. The
 * cache is bounded (least recently used schemas are compiled again when needed).
 */
export function createSchemaValidators(options: { max: number }) {
  const cache = new LRUCache<string, { validate: ValidateFunction; ajv: Ajv }>({ max: options.max });

  function compiled(schema: Record<string, unknown>) {
    const key = JSON.stringify(schema);
    let entry = cache.get(key);
    if (!entry) {
      const ajv = new Ajv({ strict: false, allErrors: true });
      entry = { validate: ajv.compile(schema), ajv };
      cache.set(key, entry);
    }
    return entry;
  }

  return {
    /** null when `value` matches `schema`, else the problems in words. */
    problems(schema: Record<string, unknown>, value: unknown): string | null {
      const { validate, ajv } = compiled(schema);
      return validate(value) ? null : ajv.errorsText(validate.errors, { dataVar: 'reply' });
    },
  };
}

export type SchemaValidators = ReturnType<typeof createSchemaValidators>;
