import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { DeliveryEvent, DeliveryStatus } from './deliveryEvents.ts';
import { type AttemptResult, classifyAttempt, nextStep } from './retryPolicy.ts';

export type DeliveryState =
  | { status: 'none' }
  | {
      status: DeliveryStatus;
      deliveryId: string;
      organizationId: string;
      url: string;
      body: string;
      event: string;
      /** Attempts started so far. */
      attempts: number;
      nextAttemptAt: string | null;
    };

export type DeliveryCommand =
  | { type: 'CreateDelivery'; event: Extract<DeliveryEvent, { type: 'DeliveryCreated' }> }
  | { type: 'StartAttempt'; data: { now: string } }
  | { type: 'FinishAttempt'; data: { attempt: number; result: AttemptResult; errorExcerpt: string | null; endedAt: string; durationMs: number; secretVersions: number[]; retryDelaysMs?: readonly number[] } }
  | { type: 'Redeliver'; data: { now: string } };

const exists = (state: DeliveryState) => {
  if (state.status === 'none') throw new ApiError('NOT_FOUND', 'No such delivery');
  return state;
};

export const delivery: Decider<DeliveryCommand, DeliveryEvent, DeliveryState> = {
  initialState: () => ({ status: 'none' }),

  evolve: (state, event) => {
    if (event.type === 'DeliveryCreated') {
      const { deliveryId, organizationId, url, body } = event.data;
      return { status: 'pending', deliveryId, organizationId, url, body, event: event.data.event, attempts: 0, nextAttemptAt: null };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'DeliveryAttemptStarted':
        return { ...state, status: 'in_flight', attempts: Math.max(state.attempts, event.data.attempt) };
      case 'DeliveryAttemptFinished':
        return { ...state, status: event.data.outcome, nextAttemptAt: event.data.nextAttemptAt };
      case 'DeliveryRedeliveryRequested':
        return { ...state, status: 'pending', nextAttemptAt: null };
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'CreateDelivery':
        // Created once per run and event: a replayed creation changes nothing.
        return state.status === 'none' ? [command.event] : [];

      case 'StartAttempt': {
        const current = exists(state);
        const { now } = command.data;
        if (current.status === 'failed_retry' && current.nextAttemptAt && Date.parse(current.nextAttemptAt) > Date.parse(now)) {
          throw new ApiError('CONFLICT', `delivery ${current.deliveryId} is not due before ${current.nextAttemptAt}`);
        }
        if (current.status === 'pending' || current.status === 'failed_retry') {
          return [{ type: 'DeliveryAttemptStarted', data: { deliveryId: current.deliveryId, attempt: current.attempts + 1, startedAt: now } }];
        }
        // An attempt whose worker died before recording its outcome is made again, under the same number.
        if (current.status === 'in_flight') return [{ type: 'DeliveryAttemptStarted', data: { deliveryId: current.deliveryId, attempt: current.attempts, startedAt: now } }];
        throw new ApiError('CONFLICT', `delivery ${current.deliveryId} is ${current.status}`);
      }

      case 'FinishAttempt': {
        const current = exists(state);
        const { attempt, result, errorExcerpt, endedAt, durationMs, secretVersions, retryDelaysMs } = command.data;
        if (current.status !== 'in_flight' || attempt !== current.attempts) throw new ApiError('CONFLICT', `attempt ${attempt} of ${current.deliveryId} is not in flight`);
        const next = nextStep(classifyAttempt(result), attempt, new Date(endedAt), retryDelaysMs);
        return [
          {
            type: 'DeliveryAttemptFinished',
            data: {
              deliveryId: current.deliveryId,
              attempt,
              secretVersions,
              outcome: next.status,
              responseStatus: result.kind === 'response' ? result.status : null,
              errorExcerpt,
              nextAttemptAt: next.status === 'failed_retry' ? next.nextAttemptAt : null,
              durationMs,
            },
          },
        ];
      }

      case 'Redeliver': {
        const current = exists(state);
        if (current.status !== 'dead_letter' && current.status !== 'failed_permanent') {
          throw new ApiError('CONFLICT', `only dead-lettered or permanently failed deliveries are redelivered (this one is ${current.status})`);
        }
        return [{ type: 'DeliveryRedeliveryRequested', data: { deliveryId: current.deliveryId, requestedAt: command.data.now } }];
      }
    }
  },
};
