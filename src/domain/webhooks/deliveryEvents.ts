import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { webhookEvents } from '../execution/executionEvents.ts';
import { personal } from '../privacy/dataClass.ts';
import { anId, callbackUrl } from '../privacy/operationalText.ts';

/**
 * `data_erased`: the run's data was erased before the delivery was made, so there was nothing to
 * send; `data_unreadable`: its body cannot be opened (sealed under a key that is not the run's
 * stored one). Both end the delivery without a POST (DeliveryEnded).
 */
export const deliveryStatuses = ['pending', 'in_flight', 'succeeded', 'failed_retry', 'failed_permanent', 'dead_letter', 'data_erased', 'data_unreadable'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/**
 * One delivery of one terminal event of one /jobs run (version 2: or of its wait for an approval,
 * `flow.waiting`; a version 1 event reads the same); its id is the idempotency key sent as X-Service-Delivery.
 */
export const DeliveryCreated = defineEvent(
  'DeliveryCreated',
  2,
  z.object({
    deliveryId: anId(),
    organizationId: anId(),
    executionId: anId(),
    flowId: anId(),
    event: z.enum(webhookEvents),
    url: callbackUrl(),
    /** The exact body (JSON text) every attempt sends; only the signature changes per attempt. */
    body: personal(z.string(), ''),
    truncated: z.boolean(),
  }),
);

export const DeliveryAttemptStarted = defineEvent('DeliveryAttemptStarted', 1, z.object({ deliveryId: anId(), attempt: z.number().int().min(1), startedAt: z.iso.datetime() }));

/**
 * v2 records which versions of the organization's secret signed the attempt (v1 and, in a grace
 * window, v2): versions, never secrets. `result`, added later (absent in earlier events), says what
 * the attempt met: the receiver's answer, a network error, a timeout, the guard's refusal, or a
 * failure on the worker's side (`internal_error`). Version 3 names the delivery's run (`executionId`),
 * so the excerpt, which can quote what the receiver made of the run's data, is sealed under the run's
 * key and erased with it; version 2 attempts name none (null: their excerpts were stored as they were).
 */
export const DeliveryAttemptFinished = defineEvent(
  'DeliveryAttemptFinished',
  3,
  z.object({
    deliveryId: anId(),
    executionId: anId().nullable(),
    attempt: z.number().int().min(1),
    secretVersions: z.array(z.number().int().min(1)),
    outcome: z.enum(['succeeded', 'failed_retry', 'failed_permanent', 'dead_letter']),
    responseStatus: z.number().int().nullable(),
    /** The receiver's answer (its first bytes, URL secrets redacted), or the service's words for a network error, a timeout or a refusal. */
    errorExcerpt: personal(z.string().nullable(), null),
    nextAttemptAt: z.iso.datetime().nullable(),
    durationMs: z.number().int(),
    result: z.enum(['response', 'network_error', 'timeout', 'blocked_address', 'internal_error']).optional(),
  }),
);

export const deliveryEndReasons = ['data_erased', 'data_unreadable'] as const;
export type DeliveryEndReason = (typeof deliveryEndReasons)[number];

/**
 * The delivery ended without another POST: its run's data was erased (its body reads as erased), or
 * its body cannot be opened. Whatever still uses an erased value decides explicitly, and a delivery
 * no worker can read ends once instead of failing its task for ever.
 */
export const DeliveryEnded = defineEvent('DeliveryEnded', 1, z.object({ deliveryId: anId(), executionId: anId(), reason: z.enum(deliveryEndReasons), endedAt: z.iso.datetime() }));

/** An operator asked for one more attempt of a dead-lettered or permanently failed delivery. */
export const DeliveryRedeliveryRequested = defineEvent('DeliveryRedeliveryRequested', 1, z.object({ deliveryId: anId(), requestedAt: z.iso.datetime() }));

export type DeliveryEvent =
  | EventOf<typeof DeliveryCreated>
  | EventOf<typeof DeliveryAttemptStarted>
  | EventOf<typeof DeliveryAttemptFinished>
  | EventOf<typeof DeliveryEnded>
  | EventOf<typeof DeliveryRedeliveryRequested>;

export const deliveryStream = (deliveryId: string) => `delivery-${deliveryId}`;
