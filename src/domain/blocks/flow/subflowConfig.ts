import { z } from 'zod';
import { slugSchema } from '../../slugs/slug.ts';
import { templatedJson } from '../../templating/templatedJson.ts';

/**
 * A `flow` block's `processor_config.subflow`: which flow it runs (by slug, in the block's own
 * project unless `project` names another of the organization's), which version (`version`, a
 * published number; production when absent, as it is when the run starts), and what the child run
 * is given: `message` (a template; the block's input when absent, as a passthrough's) and
 * `parameters` (templated JSON, a lone placeholder keeping its value's type; the run's own
 * parameters when absent).
 */
export const subflowConfigShape = {
  subflow: z
    .strictObject({
      flow: slugSchema,
      project: slugSchema.optional(),
      version: z.number().int().min(1).optional(),
      message: z.string().max(100_000).optional(),
      parameters: z.record(z.string().min(1).max(200), templatedJson).optional(),
    })
    .optional(),
};

export type SubflowConfig = NonNullable<z.infer<(typeof subflowConfigShape)['subflow']>>;

/** Where a sub-flow's target is, as a block names it. */
export interface SubflowTarget {
  project: string | undefined;
  flow: string;
  version: number | undefined;
}

export const targetOf = (config: SubflowConfig): SubflowTarget => ({ project: config.project, flow: config.flow, version: config.version });

/** A target as an error message names it: `classify` (production), `support/classify@3`. */
export const describeTarget = (target: SubflowTarget): string => `${target.project ? `${target.project}/` : ''}${target.flow}${target.version === undefined ? ' (production)' : `@${target.version}`}`;
