import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { webhookEvents } from '../execution/executionEvents.ts';

export const deliveryStatuses = ['pending', 'in_flight', 'succeeded', 'failed_retry', 'failed_permanent', 'dead_letter'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** One delivery of one terminal event of one /jobs run; its id is the idempotency key sent as X-Service-Delivery. */
export const DeliveryCreated = defineEvent(
  'DeliveryCreated',
  1,
  z.object({
    deliveryId: z.string(),
    organizationId: z.string(),
    executionId: z.string(),
    flowId: z.string(),
    event: z.enum(webhookEvents),
    url: z.string(),
    /** The exact body (JSON text) every attempt sends; only the signature changes per attempt. */
    body: z.string(),
    truncated: z.boolean(),
  }),
);

export const DeliveryAttemptStarted = defineEvent('DeliveryAttemptStarted', 1, z.object({ deliveryId: z.string(), attempt: z.number().int().min(1), startedAt: z.iso.datetime() }));

/**
 * v2 records which versions of the organization's secret signed the attempt (v1 and, in a grace
 * window, v2): versions, never secrets. `result`, added later (absent in earlier events), says what
 * the attempt met: the receiver's answer, a network error, a timeout, the guard's refusal, or a
 * failure on the worker's side (`internal_error`).
 */
export const DeliveryAttemptFinished = defineEvent(
  'DeliveryAttemptFinished',
  2,
  z.object({
    deliveryId: z.string(),
    attempt: z.number().int().min(1),
    secretVersions: z.array(z.number().int().min(1)),
    outcome: z.enum(['succeeded', 'failed_retry', 'failed_permanent', 'dead_letter']),
    responseStatus: z.number().int().nullable(),
    errorExcerpt: z.string().nullable(),
    nextAttemptAt: z.iso.datetime().nullable(),
    durationMs: z.number().int(),
    result: z.enum(['response', 'network_error', 'timeout', 'blocked_address', 'internal_error']).optional(),
  }),
);

/** An operator asked for one more attempt of a dead-lettered or permanently failed delivery. */
export const DeliveryRedeliveryRequested = defineEvent('DeliveryRedeliveryRequested', 1, z.object({ deliveryId: z.string(), requestedAt: z.iso.datetime() }));

export type DeliveryEvent = EventOf<typeof DeliveryCreated> | EventOf<typeof DeliveryAttemptStarted> | EventOf<typeof DeliveryAttemptFinished> | EventOf<typeof DeliveryRedeliveryRequested>;

export const deliveryStream = (deliveryId: string) => `delivery-${deliveryId}`;
