import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

/** A user subject may use the operator console (every organization, every action there an event). */
export const OperatorGranted = defineEvent('OperatorGranted', 1, z.object({ subject: z.string().min(1) }));
export const OperatorRevoked = defineEvent('OperatorRevoked', 1, z.object({ subject: z.string().min(1) }));

export type OperatorEvent = EventOf<typeof OperatorGranted> | EventOf<typeof OperatorRevoked>;

/** One stream holds who the operators are: few grants, read whole at every sign-in. */
export const OPERATORS_STREAM = 'operators';
