import { z } from 'zod';
import { aName, anId } from '../privacy/operationalText.ts';

/** Which execution of which block a step event is about: every step event's first fields. */
export const blockRef = {
  executionId: anId(),
  stepIndex: z.number().int(),
  blockId: anId(),
  blockName: aName(),
  /** Index of the loop item, for blocks of a loop step. */
  iteration: z.number().int().nullable(),
};
