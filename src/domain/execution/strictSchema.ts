import { isPlainObject } from '../validation/plainObject.ts';

/**
 * How an llm block's output schema is sent to the model. OpenAI's strict structured outputs refuse
 * (HTTP 400) a schema unless every object lists all its properties in `required` and sets
 * `additionalProperties: false`, and they know only a subset of JSON Schema. Users rarely write
 * schemas that way, so a schema is made strict-compatible when that keeps every strict reply
 * acceptable to the user's own schema: `additionalProperties: false` is added where it is missing,
 * and an optional property becomes required but nullable (a null for it is dropped from the reply
 * before the reply is validated against the user's schema). Anything else (free-form objects,
 * keywords strict mode does not know, optional properties under `anyOf`, limits) is sent non-strict,
 * unchanged, with the reason recorded.
 */
export type StructuredOutputPlan =
  | { strict: true; schema: Record<string, unknown> }
  | { strict: false; schema: Record<string, unknown>; reason: string };

/** Keywords of the JSON Schema subset strict mode accepts (OpenAI, "Supported schemas"). */
const STRICT_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'description', 'title', '$defs', 'definitions', '$ref',
  'pattern', 'format', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'minItems', 'maxItems',
]);
/** Strict mode's documented limits. */
export const STRICT_LIMITS = { nesting: 10, properties: 5000, enumValues: 1000 } as const;

class NotStrict extends Error {}

interface Walk {
  properties: number;
  enumValues: number;
  /** Optional properties become nullable only where the reply can be walked back unambiguously. */
  hasAnyOf: boolean;
}

export function planStructuredOutput(schema: Record<string, unknown>): StructuredOutputPlan {
  try {
    if ('anyOf' in schema) throw new NotStrict('the root schema may not be anyOf');
    if (schema.type !== 'object') throw new NotStrict('the root schema must be an object');
    const walk: Walk = { properties: 0, enumValues: 0, hasAnyOf: JSON.stringify(schema).includes('"anyOf"') };
    const converted = convert(schema, 1, walk, false);
    if (walk.properties > STRICT_LIMITS.properties) throw new NotStrict(`more than ${STRICT_LIMITS.properties} properties`);
    if (walk.enumValues > STRICT_LIMITS.enumValues) throw new NotStrict(`more than ${STRICT_LIMITS.enumValues} enum values`);
    return { strict: true, schema: converted };
  } catch (error) {
    if (error instanceof NotStrict) return { strict: false, schema, reason: error.message };
    throw error;
  }
}

function convert(node: unknown, depth: number, walk: Walk, underAnyOf: boolean): Record<string, unknown> {
  if (!isPlainObject(node)) throw new NotStrict('a boolean or non-object subschema');
  if (depth > STRICT_LIMITS.nesting) throw new NotStrict(`nesting deeper than ${STRICT_LIMITS.nesting} levels`);
  for (const key of Object.keys(node)) if (!STRICT_KEYWORDS.has(key)) throw new NotStrict(`"${key}" is not supported in strict mode`);
  const out: Record<string, unknown> = { ...node };
  if (Array.isArray(node.enum)) walk.enumValues += node.enum.length;
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) throw new NotStrict('only local $ref are supported');

  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type : [];
  if (types.includes('object') || 'properties' in node) Object.assign(out, convertObject(node, depth, walk, underAnyOf));
  if ('items' in node) {
    if (Array.isArray(node.items)) throw new NotStrict('tuple "items" are not supported');
    out.items = convert(node.items, depth + 1, walk, underAnyOf);
  }
  if ('anyOf' in node) {
    if (!Array.isArray(node.anyOf)) throw new NotStrict('"anyOf" must be an array');
    out.anyOf = node.anyOf.map((branch) => convert(branch, depth + 1, walk, true));
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    if (defs in node) {
      if (!isPlainObject(node[defs])) throw new NotStrict(`"${defs}" must be an object`);
      out[defs] = Object.fromEntries(Object.entries(node[defs]).map(([name, def]) => [name, convert(def, depth, walk, walk.hasAnyOf)]));
    }
  }
  return out;
}

function convertObject(node: Record<string, unknown>, depth: number, walk: Walk, underAnyOf: boolean) {
  const properties = node.properties ?? {};
  if (!isPlainObject(properties)) throw new NotStrict('"properties" must be an object');
  const names = Object.keys(properties);
  if (node.additionalProperties !== undefined && node.additionalProperties !== false) throw new NotStrict('an object with additionalProperties other than false');
  if (names.length === 0 && node.additionalProperties !== false) throw new NotStrict('an object without properties (it takes any keys)');
  const required = Array.isArray(node.required) ? (node.required as unknown[]) : [];
  walk.properties += names.length;
  const converted = names.map((name) => {
    const property = convert(properties[name], depth + 1, walk, underAnyOf);
    if (required.includes(name) || acceptsNull(properties[name])) return [name, property] as const;
    if (underAnyOf) throw new NotStrict(`optional property "${name}" under anyOf`);
    return [name, { anyOf: [property, { type: 'null' }] }] as const;
  });
  return { properties: Object.fromEntries(converted), required: names, additionalProperties: false };
}

function acceptsNull(node: unknown): boolean {
  if (!isPlainObject(node)) return node === true;
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if ('const' in node && node.const === null) return true;
  return Array.isArray(node.anyOf) && node.anyOf.some(acceptsNull);
}

/**
 * A strict reply carries null for optional properties the model left out. Dropping those (where the
 * user's schema does not itself accept null) gives the reply the user's schema describes.
 */
export function dropNullOptionals(value: unknown, schema: Record<string, unknown>): unknown {
  return dropIn(value, schema, schema);
}

function resolve(node: unknown, root: Record<string, unknown>): unknown {
  for (let hops = 0; isPlainObject(node) && typeof node.$ref === 'string' && hops < 32; hops++) {
    const ref: string = node.$ref;
    if (ref === '#') node = root;
    else {
      const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
      const defs = match ? root[match[1]!] : undefined;
      node = match && isPlainObject(defs) ? defs[decodeURIComponent(match[2]!.replace(/~1/g, '/').replace(/~0/g, '~'))] : undefined;
    }
  }
  return node;
}

function dropIn(value: unknown, node: unknown, root: Record<string, unknown>): unknown {
  const schema = resolve(node, root);
  if (!isPlainObject(schema)) return value;
  if (isPlainObject(value) && isPlainObject(schema.properties)) {
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    const properties = schema.properties;
    // fromEntries defines own properties, so a key like "__proto__" stays data.
    return Object.fromEntries(
      Object.entries(value).flatMap(([name, item]) => {
        const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
        if (item === null && property !== undefined && !required.includes(name) && !acceptsNull(resolve(property, root))) return [];
        return [[name, property === undefined ? item : dropIn(item, property, root)]];
      }),
    );
  }
  if (Array.isArray(value) && schema.items !== undefined && !Array.isArray(schema.items)) return value.map((item) => dropIn(item, schema.items, root));
  return value;
}
