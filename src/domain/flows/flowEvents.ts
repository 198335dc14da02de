import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { storedStepSchema } from './flowDefinition.ts';

export const FlowCreated = defineEvent(
  'FlowCreated',
  1,
  z.object({ flowId: z.string(), projectId: z.string(), organizationId: z.string(), slug: z.string(), name: z.string() }),
);
/** The whole draft at once (an import). Finer-grained edits get their own event types. */
export const FlowDraftReplaced = defineEvent(
  'FlowDraftReplaced',
  1,
  z.object({ flowId: z.string(), name: z.string(), steps: z.array(storedStepSchema) }),
);
/** An immutable snapshot of the draft: the version's whole definition travels in the event. */
export const FlowVersionPublished = defineEvent(
  'FlowVersionPublished',
  1,
  z.object({
    flowId: z.string(),
    versionId: z.string(),
    number: z.number().int().min(1),
    note: z.string().nullable(),
    name: z.string(),
    steps: z.array(storedStepSchema),
  }),
);
export const FlowProductionVersionSet = defineEvent(
  'FlowProductionVersionSet',
  1,
  z.object({ flowId: z.string(), versionId: z.string(), number: z.number().int().min(1), previousVersionId: z.string().nullable() }),
);

export type FlowEvent =
  | EventOf<typeof FlowCreated>
  | EventOf<typeof FlowDraftReplaced>
  | EventOf<typeof FlowVersionPublished>
  | EventOf<typeof FlowProductionVersionSet>;

export const flowStream = (flowId: string) => `flow-${flowId}`;
