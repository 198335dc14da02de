import type { z } from 'zod';
import { classOf } from './dataClass.ts';

/** What an event's schema says of the personal data it can hold (dataClass.ts). */
export interface EventPrivacy {
  /** Its top-level fields marked personal, in the schema's order, with what each reads as once erased. */
  personal: { field: string; erased: unknown }[];
  /** Where a text, an open object or an unknown value has no mark: a decision not made. */
  unclassified: string[];
  /** Where a personal mark cannot be honoured: below the top level, or in an event that names no run (`executionId`). */
  unsealable: string[];
}

/** String formats that hold no free text: a time or a UUID says nothing of a person. */
const CLOSED_FORMATS = new Set(['datetime', 'date', 'time', 'duration', 'uuid', 'guid']);
/** Kinds of value that are never free text. */
const CLOSED_KINDS = new Set(['number', 'int', 'boolean', 'bigint', 'null', 'undefined', 'literal', 'enum', 'never', 'nan', 'date', 'void']);
/** Wrappers whose inner schema says what the value holds. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;
const formatOf = (schema: z.ZodType) => (schema as unknown as { format?: string | null }).format ?? null;

/** Walks an event's schema (a zod object) and says which fields are personal, and what is left undecided. */
export function eventPrivacy(schema: z.ZodType): EventPrivacy {
  const found: EventPrivacy = { personal: [], unclassified: [], unsealable: [] };
  const def = defOf(schema);
  if (def.type !== 'object' || !def.shape) {
    found.unclassified.push('(the event is not an object)');
    return found;
  }
  const namesRun = 'executionId' in def.shape;
  for (const [name, field] of Object.entries(def.shape)) walk(field, name, true, namesRun, found);
  return found;
}

function walk(schema: z.ZodType, path: string, topLevel: boolean, namesRun: boolean, found: EventPrivacy, depth = 0): void {
  const mark = classOf(schema);
  if (mark?.kind === 'personal') {
    if (topLevel && namesRun) found.personal.push({ field: path, erased: mark.erased });
    else found.unsealable.push(path);
    return;
  }
  if (mark?.kind === 'operational') return;
  // A schema that refers to itself (z.lazy) is open-ended: it needs a mark of its own.
  if (depth > 32) return void found.unclassified.push(path);
  const def = defOf(schema);
  const next = (inner: z.ZodType | undefined, at: string, stillTop: boolean) => inner && walk(inner, at, stillTop, namesRun, found, depth + 1);
  if (CLOSED_KINDS.has(def.type)) return;
  if (WRAPPERS.has(def.type)) return next(def.innerType, path, topLevel);
  switch (def.type) {
    case 'string':
      if (!CLOSED_FORMATS.has(formatOf(schema) ?? '')) found.unclassified.push(path);
      return;
    case 'pipe':
      return next(def.in, path, topLevel);
    case 'object':
      for (const [name, field] of Object.entries(def.shape ?? {})) next(field, `${path}.${name}`, false);
      if (def.catchall && defOf(def.catchall).type !== 'never') found.unclassified.push(`${path}.*`);
      return;
    case 'array':
      return next(def.element, `${path}[]`, false);
    case 'tuple':
      (def.items ?? []).forEach((item, i) => next(item, `${path}[${i}]`, false));
      if (def.rest) next(def.rest, `${path}[]`, false);
      return;
    case 'union':
      // Each option at the same place: a discriminated union's objects hold the same fields' kinds.
      for (const option of def.options ?? []) next(option, path, topLevel);
      return;
    case 'intersection':
      next(def.left, path, topLevel);
      next(def.right, path, topLevel);
      return;
    case 'lazy':
      return next(def.getter?.(), path, topLevel);
    default:
      // An open object (record, map), an unknown or any value, or a kind this walk does not know: undecided until marked.
      found.unclassified.push(path);
  }
}
