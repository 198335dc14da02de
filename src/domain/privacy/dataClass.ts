import { z } from 'zod';

/**
 * Whether a field of an event can hold personal data, said where the field is declared: in the
 * event's zod schema. Every text, open-object or unknown field of every event carries one of these
 * (test/unit/eventPrivacy.unit.spec.ts walks the union and fails on any left out), so a new event or
 * field cannot reach the log without a decision.
 *
 * - personal: sealed under its run's data key (src/domain/privacy/sealedFields.ts, generated from
 *   these marks), and read as `erased` once the key is shredded. Only a top-level field of an event
 *   that names its run (`executionId`) can be: that is what the log seals.
 * - operational: kept readable for as long as the log, with the one-line reason it may be.
 *
 * The marks live in a zod registry (zod's own way to attach metadata to a schema) that this module
 * declares once: an immutable table, filled as the event modules are loaded and only read after.
 */
export type DataClass = { kind: 'personal'; erased: unknown } | { kind: 'operational'; reason: string };

export const dataClasses = z.registry<DataClass>();

/** The field holds what a run's caller, its code or its models said: sealed, and gone with the run's key. */
export function personal<S extends z.ZodType>(schema: S, erased: z.output<S>): S {
  dataClasses.add(schema, { kind: 'personal', erased });
  return schema;
}

/** The field holds none of a run's personal data, for the reason given: kept readable. */
export function operational<S extends z.ZodType>(schema: S, reason: string): S {
  if (reason.trim() === '') throw new Error('an operational field needs its reason');
  dataClasses.add(schema, { kind: 'operational', reason });
  return schema;
}

export const classOf = (schema: z.ZodType): DataClass | undefined => dataClasses.get(schema);
