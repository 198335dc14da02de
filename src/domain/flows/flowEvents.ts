import { z } from 'zod';
import { operational } from '../privacy/dataClass.ts';
import { aName, anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { storedBlockSchema, storedStepSchema } from './flowDefinition.ts';

/** The flow's definition (prompts, code, schemas, conditions): what its authors wrote. */
const FLOW_CONFIGURATION = "the flow's definition, written by its authors: configuration, not a run's data";
const flowSteps = () => operational(z.array(storedStepSchema), FLOW_CONFIGURATION);

export const FlowCreated = defineEvent(
  'FlowCreated',
  1,
  z.object({ flowId: anId(), projectId: anId(), organizationId: anId(), slug: aName(), name: aName() }),
);
/** The whole draft at once (an import). Finer-grained edits get their own event types. */
export const FlowDraftReplaced = defineEvent(
  'FlowDraftReplaced',
  1,
  z.object({ flowId: anId(), name: aName(), steps: flowSteps() }),
);
/** An immutable snapshot of the draft: the version's whole definition travels in the event. */
export const FlowVersionPublished = defineEvent(
  'FlowVersionPublished',
  1,
  z.object({
    flowId: anId(),
    versionId: anId(),
    number: z.number().int().min(1),
    note: operational(z.string().nullable(), "the publisher's note on the version: about the flow, not a run"),
    name: aName(),
    steps: flowSteps(),
  }),
);
export const FlowProductionVersionSet = defineEvent(
  'FlowProductionVersionSet',
  1,
  z.object({ flowId: anId(), versionId: anId(), number: z.number().int().min(1), previousVersionId: anId().nullable() }),
);

/*
 * Block-by-block edits of the draft. Each says what changed and carries the draft as it is after the
 * change, so projections and audits read the result without re-running the edit.
 */
const draftAfter = { flowId: anId(), steps: flowSteps() };
export const FlowBlockAdded = defineEvent(
  'FlowBlockAdded',
  1,
  z.object({ ...draftAfter, block: operational(storedBlockSchema, FLOW_CONFIGURATION), targetId: anId().nullable(), direction: z.enum(['right', 'bottom']).nullable() }),
);
export const FlowBlockUpdated = defineEvent('FlowBlockUpdated', 1, z.object({ ...draftAfter, blockId: anId(), changes: operational(z.record(z.string(), z.unknown()), FLOW_CONFIGURATION) }));
export const FlowBlockOutputSchemaSet = defineEvent('FlowBlockOutputSchemaSet', 1, z.object({ ...draftAfter, blockId: anId(), schema: operational(z.record(z.string(), z.unknown()).nullable(), FLOW_CONFIGURATION) }));
export const FlowBlockRemoved = defineEvent('FlowBlockRemoved', 1, z.object({ ...draftAfter, blockId: anId() }));
/** A block wrapped in a loop over `over`, or (null) unwrapped. */
export const FlowBlockLoopSet = defineEvent('FlowBlockLoopSet', 1, z.object({ ...draftAfter, blockId: anId(), over: operational(z.string().nullable(), FLOW_CONFIGURATION) }));

/** The promotion gate: when on, a version becomes production only once every test case passed on it. */
export const FlowPromotionGateSet = defineEvent('FlowPromotionGateSet', 1, z.object({ flowId: anId(), enabled: z.boolean() }));
/** The backtest rule of the promotion gate: at most this share (0-100) of changed answers in a backtest of the version, or (null) no rule. */
export const FlowBacktestGateSet = defineEvent('FlowBacktestGateSet', 1, z.object({ flowId: anId(), maxChangedPercent: z.number().min(0).max(100).nullable() }));
/**
 * A version set as production past the gate, on purpose: who did it is in the metadata. Version 2
 * added the backtest rule: `gate` is what the test cases said (`passed` when only the backtest held
 * the version back), `backtest` what the backtest said (null when it did not hold it back).
 */
export const FlowPromotionForced = defineEvent(
  'FlowPromotionForced',
  2,
  z.object({
    flowId: anId(),
    versionId: anId(),
    gate: z.enum(['passed', 'not_run', 'failing']),
    testCases: z.array(anId()),
    backtest: z.object({ status: z.enum(['not_run', 'changed']), backtestId: anId().nullable(), changedPercent: z.number().nullable() }).nullable(),
    reason: operational(z.string().nullable(), "why an operator forced the promotion, in their own words: the audit trail of that decision"),
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
