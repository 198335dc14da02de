import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import { storableExcerpt } from '../text/storableText.ts';
import type { DeliveryEndReason, DeliveryEvent, DeliveryStatus } from './deliveryEvents.ts';
import { type AttemptResult, classifyAttempt, nextStep } from './retryPolicy.ts';

/**
 * A delivery's attempts, decided from its events. Crash semantics:
 * - An attempt is `DeliveryAttemptStarted`, the POST, then `DeliveryAttemptFinished`. A worker that
 *   dies (or cannot record the outcome) between the two leaves it in flight; once its lease runs out
 *   the attempt is made again under the same number, so the receiver may see one POST twice (it
 *   dedupes on X-Service-Delivery).
 * - Those re-runs are counted: once an attempt number has been started `MAX_STARTS_PER_ATTEMPT`
 *   times, the next start is not made but finished as `internal_error`, which counts toward the
 *   retries like a receiver's 500. So a delivery whose outcome can never be recorded still ends
 *   (dead letter), with at most `MAX_STARTS_PER_ATTEMPT` POSTs per retry step.
 * - An outcome names the start it is of (`start`, the attempt's start count when it was made). A
 *   worker held up past its lease, whose attempt another worker started again, is refused when it
 *   comes back with its answer, however often it retries: the attempt in flight is the newer one,
 *   and its outcome is the one recorded.
 * - Every excerpt goes through the storable-text boundary here, so the outcome can always be stored.
 * - A delivery whose run's data was erased, or whose body cannot be opened, ends (`End`) instead of
 *   being attempted: nothing is POSTed, and the end is recorded once (DeliveryEnded). The shell says
 *   which, from what its read of the delivery's events found; a worker that dies before recording
 *   it leaves the delivery as it was, and the next one decides the same.
 */
export const MAX_STARTS_PER_ATTEMPT = 3;
/** The longest error excerpt recorded (the worker reads 512 bytes; its redaction may add some). */
export const ERROR_EXCERPT_MAX = 1024;

export type DeliveryState =
  | { status: 'none' }
  | {
      status: DeliveryStatus;
      deliveryId: string;
      organizationId: string;
      executionId: string;
      url: string;
      body: string;
      event: string;
      /** Attempts started so far. */
      attempts: number;
      /** How many times the current attempt number was started (re-runs after a lost outcome included). */
      starts: number;
      nextAttemptAt: string | null;
    };

export type DeliveryCommand =
  | { type: 'CreateDelivery'; event: Extract<DeliveryEvent, { type: 'DeliveryCreated' }> }
  | { type: 'StartAttempt'; data: { now: string; retryDelaysMs?: readonly number[] | undefined } }
  | { type: 'FinishAttempt'; data: { attempt: number; start: number; result: AttemptResult; errorExcerpt: string | null; endedAt: string; durationMs: number; secretVersions: number[]; retryDelaysMs?: readonly number[] } }
  | { type: 'Redeliver'; data: { now: string } }
  | { type: 'End'; data: { reason: DeliveryEndReason; now: string } };

const exists = (state: DeliveryState) => {
  if (state.status === 'none') throw new ApiError('NOT_FOUND', 'No such delivery');
  return state;
};

export const delivery: Decider<DeliveryCommand, DeliveryEvent, DeliveryState> = {
  initialState: () => ({ status: 'none' }),

  evolve: (state, event) => {
    if (event.type === 'DeliveryCreated') {
      const { deliveryId, organizationId, executionId, url, body } = event.data;
      return { status: 'pending', deliveryId, organizationId, executionId, url, body, event: event.data.event, attempts: 0, starts: 0, nextAttemptAt: null };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'DeliveryAttemptStarted':
        return { ...state, status: 'in_flight', attempts: Math.max(state.attempts, event.data.attempt), starts: event.data.attempt === state.attempts ? state.starts + 1 : 1 };
      case 'DeliveryAttemptFinished':
        return { ...state, status: event.data.outcome, nextAttemptAt: event.data.nextAttemptAt };
      case 'DeliveryRedeliveryRequested':
        return { ...state, status: 'pending', nextAttemptAt: null };
      case 'DeliveryEnded':
        return { ...state, status: event.data.reason, nextAttemptAt: null };
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
        if (current.status === 'in_flight') {
          // An attempt whose worker died before recording its outcome is made again, under the same
          // number, until it has been started MAX_STARTS_PER_ATTEMPT times: then it ends as the worker's failure.
          if (current.starts >= MAX_STARTS_PER_ATTEMPT) {
            const excerpt = `the attempt was started ${current.starts} times without its outcome being recorded (its worker died or could not record it)`;
            return [finished(current, current.attempts, { kind: 'internal_error' }, excerpt, now, 0, [], command.data.retryDelaysMs)];
          }
          return [{ type: 'DeliveryAttemptStarted', data: { deliveryId: current.deliveryId, attempt: current.attempts, startedAt: now } }];
        }
        throw new ApiError('CONFLICT', `delivery ${current.deliveryId} is ${current.status}`);
      }

      case 'FinishAttempt': {
        const current = exists(state);
        const { attempt, start, result, errorExcerpt, endedAt, durationMs, secretVersions, retryDelaysMs } = command.data;
        if (current.status !== 'in_flight' || attempt !== current.attempts) throw new ApiError('CONFLICT', `attempt ${attempt} of ${current.deliveryId} is not in flight`);
        if (start !== current.starts) throw new ApiError('CONFLICT', `attempt ${attempt} of ${current.deliveryId} was started again since (start ${current.starts}, this outcome is of start ${start})`);
        return [finished(current, attempt, result, errorExcerpt, endedAt, durationMs, secretVersions, retryDelaysMs)];
      }

      case 'End': {
        const current = exists(state);
        // Only a delivery still to be made ends so; one that ended (delivered, failed, ended) stays as it ended.
        if (current.status !== 'pending' && current.status !== 'failed_retry' && current.status !== 'in_flight') return [];
        return [{ type: 'DeliveryEnded', data: { deliveryId: current.deliveryId, executionId: current.executionId, reason: command.data.reason, endedAt: command.data.now } }];
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

/** An attempt's outcome as the retry policy decides it, its excerpt made storable. */
function finished(
  current: Exclude<DeliveryState, { status: 'none' }>,
  attempt: number,
  result: AttemptResult,
  errorExcerpt: string | null,
  endedAt: string,
  durationMs: number,
  secretVersions: number[],
  retryDelaysMs?: readonly number[],
): Extract<DeliveryEvent, { type: 'DeliveryAttemptFinished' }> {
  const next = nextStep(classifyAttempt(result), attempt, new Date(endedAt), retryDelaysMs);
  return {
    type: 'DeliveryAttemptFinished',
    data: {
      deliveryId: current.deliveryId,
      executionId: current.executionId,
      attempt,
      secretVersions,
      outcome: next.status,
      responseStatus: result.kind === 'response' ? result.status : null,
      errorExcerpt: errorExcerpt === null ? null : storableExcerpt(errorExcerpt, ERROR_EXCERPT_MAX),
      nextAttemptAt: next.status === 'failed_retry' ? next.nextAttemptAt : null,
      durationMs,
      result: result.kind,
    },
  };
}
