import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { storedBlockSchema, storedStepSchema } from './flowDefinition.ts';

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

/*
 * Block-by-block edits of the draft. Each says what changed and carries the draft as it is after the
 * change, so projections and audits read the result without re-running the edit.
 */
const draftAfter = { flowId: z.string(), steps: z.array(storedStepSchema) };
export const FlowBlockAdded = defineEvent(
  'FlowBlockAdded',
  1,
  z.object({ ...draftAfter, block: storedBlockSchema, targetId: z.string().nullable(), direction: z.enum(['right', 'bottom']).nullable() }),
);
export const FlowBlockUpdated = defineEvent('FlowBlockUpdated', 1, z.object({ ...draftAfter, blockId: z.string(), changes: z.record(z.string(), z.unknown()) }));
export const FlowBlockOutputSchemaSet = defineEvent('FlowBlockOutputSchemaSet', 1, z.object({ ...draftAfter, blockId: z.string(), schema: z.record(z.string(), z.unknown()).nullable() }));
export const FlowBlockRemoved = defineEvent('FlowBlockRemoved', 1, z.object({ ...draftAfter, blockId: z.string() }));
/** A block wrapped in a loop over `over`, or (null) unwrapped. */
export const FlowBlockLoopSet = defineEvent('FlowBlockLoopSet', 1, z.object({ ...draftAfter, blockId: z.string(), over: z.string().nullable() }));

/** The promotion gate: when on, a version becomes production only once every test case passed on it. */
export const FlowPromotionGateSet = defineEvent('FlowPromotionGateSet', 1, z.object({ flowId: z.string(), enabled: z.boolean() }));
/** The backtest rule of the promotion gate: at most this share (0-100) of changed answers in a backtest of the version, or (null) no rule. */
export const FlowBacktestGateSet = defineEvent('FlowBacktestGateSet', 1, z.object({ flowId: z.string(), maxChangedPercent: z.number().min(0).max(100).nullable() }));
/**
 * A version set as production past the gate, on purpose: who did it is in the metadata. Version 2
 * added the backtest rule: `gate` is what the test cases said (`passed` when only the backtest held
 * the version back), `backtest` what the backtest said (null when it did not hold it back).
 */
export const FlowPromotionForced = defineEvent(
  'FlowPromotionForced',
  2,
  z.object({
    flowId: z.string(),
    versionId: z.string(),
    gate: z.enum(['passed', 'not_run', 'failing']),
    testCases: z.array(z.string()),
    backtest: z.object({ status: z.enum(['not_run', 'changed']), backtestId: z.string().nullable(), changedPercent: z.number().nullable() }).nullable(),
    reason: z.string().nullable(),
  }),
);

export const draftEditTypes = ['FlowBlockAdded', 'FlowBlockUpdated', 'FlowBlockOutputSchemaSet', 'FlowBlockRemoved', 'FlowBlockLoopSet'] as const;

export type FlowEvent =
  | EventOf<typeof FlowCreated>
  | EventOf<typeof FlowDraftReplaced>
  | EventOf<typeof FlowBlockAdded>
  | EventOf<typeof FlowBlockUpdated>
  | EventOf<typeof FlowBlockOutputSchemaSet>
  | EventOf<typeof FlowBlockRemoved>
  | EventOf<typeof FlowBlockLoopSet>
  | EventOf<typeof FlowPromotionGateSet>
  | EventOf<typeof FlowBacktestGateSet>
  | EventOf<typeof FlowPromotionForced>
  | EventOf<typeof FlowVersionPublished>
  | EventOf<typeof FlowProductionVersionSet>;

export const flowStream = (flowId: string) => `flow-${flowId}`;
