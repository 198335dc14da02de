import type { z } from 'zod';

/**
 * One event type at one schema version. An event type's meaning never changes: a new shape is a
 * new version with an upcaster from the previous one, or a new type.
 */
export interface EventDefinition<TType extends string, TSchema extends z.ZodType> {
  type: TType;
  version: number;
  schema: TSchema;
}

export const defineEvent = <TType extends string, TSchema extends z.ZodType>(
  type: TType,
  version: number,
  schema: TSchema,
): EventDefinition<TType, TSchema> => ({ type, version, schema });

/** The `{type, data}` value the deciders and projections work with. */
export type EventOf<D> = D extends EventDefinition<infer T, infer S> ? { type: T; data: z.infer<S> } : never;
