import { ApiError } from '../domain/errors/apiError.ts';
import { delivery } from '../domain/webhooks/delivery.ts';
import { type DeliveryEvent, deliveryStream } from '../domain/webhooks/deliveryEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';

/** One delivery as its stream tells it: where it stands, what it sends where, and every attempt with its outcome, answer, excerpt and timing. */
export async function deliveryHistory(eventStore: EventStore, deliveryId: string) {
  const recorded = await eventStore.readStream(deliveryStream(deliveryId));
  if (recorded.length === 0) throw new ApiError('NOT_FOUND', `No delivery ${deliveryId}`);
  const events = recorded.map((r) => decodeRecorded(r) as DeliveryEvent);
  const first = events[0];
  const created = first?.type === 'DeliveryCreated' ? first.data : null;
  const attempts: { attempt: number; startedAt: string; outcome: string | null; responseStatus: number | null; errorExcerpt: string | null; durationMs: number | null; nextAttemptAt: string | null; secretVersions: number[] }[] = [];
  const redeliveries: { requestedAt: string; by: unknown }[] = [];
  events.forEach((event, i) => {
    if (event.type === 'DeliveryAttemptStarted') attempts.push({ attempt: event.data.attempt, startedAt: event.data.startedAt, outcome: null, responseStatus: null, errorExcerpt: null, durationMs: null, nextAttemptAt: null, secretVersions: [] });
    if (event.type === 'DeliveryAttemptFinished') {
      const open = attempts.findLast((a) => a.attempt === event.data.attempt && a.outcome === null);
      if (open) Object.assign(open, { outcome: event.data.outcome, responseStatus: event.data.responseStatus, errorExcerpt: event.data.errorExcerpt, durationMs: event.data.durationMs, nextAttemptAt: event.data.nextAttemptAt, secretVersions: event.data.secretVersions });
    }
    if (event.type === 'DeliveryRedeliveryRequested') redeliveries.push({ requestedAt: event.data.requestedAt, by: recorded[i]!.metadata.principal });
  });
  const state = events.reduce(delivery.evolve, delivery.initialState());
  const status = state.status === 'none' ? null : state.status;
  return { deliveryId, status, executionId: created?.executionId ?? null, organizationId: created?.organizationId ?? null, event: created?.event ?? null, url: created?.url ?? null, truncated: created?.truncated ?? null, attempts, redeliveries };
}
