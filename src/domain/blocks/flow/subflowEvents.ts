import { z } from 'zod';
import { defineEvent, type EventOf } from '../../events/eventDefinition.ts';
import { blockRef } from '../../execution/blockRef.ts';
import { anId } from '../../privacy/operationalText.ts';

/**
 * A `flow` block started its child run (issue 61): the parent's side of the link (the child's
 * ExecutionRequested names the parent), with the flow and version it runs. Recorded in the parent's
 * stream before the child's request, once per block execution; ids only, nothing of the run's data.
 */
export const SubflowStarted = defineEvent(
  'SubflowStarted',
  1,
  z.object({
    ...blockRef,
    childExecutionId: anId(),
    childFlowId: anId(),
    childProjectId: anId(),
    childVersionId: anId(),
    childVersionNumber: z.number().int().min(1),
  }),
);

export type SubflowEvent = EventOf<typeof SubflowStarted>;
