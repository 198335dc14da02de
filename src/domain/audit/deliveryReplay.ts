import { ApiError } from '../errors/apiError.ts';
import { delivery, type DeliveryState } from '../webhooks/delivery.ts';
import type { DeliveryEvent } from '../webhooks/deliveryEvents.ts';
import { MAX_ATTEMPTS, classifyAttempt } from '../webhooks/retryPolicy.ts';
import type { Divergence } from './runReplay.ts';

/**
 * Audit replay of one webhook delivery: each recorded attempt is decided again by the delivery
 * decider on the state before it (an attempt starts only when due, under the next number or, after
 * a crash, the same one), and each outcome must follow the retry policy from the answer recorded
 * with it: 2xx succeeded, 408/429/5xx retried, other answers failed for good, no answer (network
 * error, timeout, refused address) retried or failed for good, and the sixth failure dead-lettered.
 */
export function replayDelivery(events: DeliveryEvent[]): Divergence | null {
  let state: DeliveryState = delivery.initialState();
  for (const [index, event] of events.entries()) {
    const diverged = (reason: string): Divergence => ({ index, eventType: event.type, reason });
    try {
      const reason = check(event, state);
      if (reason) return diverged(reason);
    } catch (error) {
      return diverged(error instanceof ApiError ? error.message : String(error));
    }
    state = delivery.evolve(state, event);
  }
  return null;
}

function check(event: DeliveryEvent, state: DeliveryState): string | null {
  switch (event.type) {
    case 'DeliveryCreated':
      return state.status === 'none' ? null : 'the delivery was created twice';
    case 'DeliveryAttemptStarted': {
      const [decided] = delivery.decide({ type: 'StartAttempt', data: { now: event.data.startedAt } }, state);
      return decided?.type === 'DeliveryAttemptStarted' && decided.data.attempt === event.data.attempt ? null : `attempt ${event.data.attempt} is not the attempt due`;
    }
    case 'DeliveryAttemptFinished': {
      if (state.status !== 'in_flight' || event.data.attempt !== state.attempts) return `attempt ${event.data.attempt} finished without being in flight`;
      const { outcome, responseStatus, nextAttemptAt } = event.data;
      const verdicts = responseStatus === null ? (['retry', 'permanent'] as const) : ([classifyAttempt({ kind: 'response', status: responseStatus })] as const);
      const allowed = verdicts.map((verdict) => (verdict === 'succeeded' ? 'succeeded' : verdict === 'permanent' ? 'failed_permanent' : event.data.attempt >= MAX_ATTEMPTS ? 'dead_letter' : 'failed_retry'));
      if (!(allowed as string[]).includes(outcome)) return `outcome ${outcome} does not follow the retry policy for ${responseStatus === null ? 'no answer' : `status ${responseStatus}`} at attempt ${event.data.attempt}`;
      if ((outcome === 'failed_retry') !== (nextAttemptAt !== null)) return 'a retried attempt names when the next one is due, and only it';
      return null;
    }
    case 'DeliveryRedeliveryRequested':
      delivery.decide({ type: 'Redeliver', data: { now: event.data.requestedAt } }, state);
      return null;
    case 'DeliveryEnded':
      return delivery.decide({ type: 'End', data: { reason: event.data.reason, now: event.data.endedAt } }, state).length === 1 ? null : `the delivery ended (${event.data.reason}) after it had ended`;
  }
}
