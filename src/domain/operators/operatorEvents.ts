import { z } from 'zod';
import { aSubject } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

/** A user subject may use the operator console (every organization, every action there an event). */
export const OperatorGranted = defineEvent('OperatorGranted', 1, z.object({ subject: aSubject() }));
export const OperatorRevoked = defineEvent('OperatorRevoked', 1, z.object({ subject: aSubject() }));

/** Every console session opened with a one-time link before `before` ends (`seqflow console revoke`). */
export const ConsoleLinkSessionsEnded = defineEvent('ConsoleLinkSessionsEnded', 1, z.object({ before: z.iso.datetime() }));

export type OperatorEvent = EventOf<typeof OperatorGranted> | EventOf<typeof OperatorRevoked> | EventOf<typeof ConsoleLinkSessionsEnded>;

/** One stream holds who the operators are and which link sessions ended: few events, read whole at every console call. */
export const OPERATORS_STREAM = 'operators';
