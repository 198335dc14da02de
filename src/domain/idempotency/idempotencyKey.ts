import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { IdempotencyKeyEvent, IdempotentOperation } from './idempotencyKeyEvents.ts';

/** How long a key answers with its first response (Stripe's window). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  body: unknown;
}

interface Claim {
  projectId: string;
  keyHash: string;
  claimId: string;
  requestHash: string;
  claimedAt: string;
  leaseUntil: string;
}

export type IdempotencyKeyState =
  | { status: 'free' }
  | ({ status: 'inFlight' } & Claim)
  | ({ status: 'answered'; response: StoredResponse } & Claim);

export type IdempotencyKeyCommand =
  | {
      type: 'Claim';
      data: { projectId: string; keyHash: string; claimId: string; operation: IdempotentOperation; requestHash: string; now: string; leaseMs: number };
    }
  | { type: 'Answer'; data: { claimId: string; executionId: string | null; response: StoredResponse } }
  | { type: 'Release'; data: { claimId: string } };

const REUSED = 'This Idempotency-Key was used with a different request (operation, flow or body) in the last 24 hours: send a new key for a new request';

/**
 * An `Idempotency-Key` with Stripe's semantics. A claim is taken when the key is free, when its last
 * use is over 24 hours old, or when an unanswered claim's lease ran out (its process died: the
 * retry runs anew). The same request while a claim is in flight is refused IDEMPOTENCY_KEY_IN_USE
 * (the caller retries later); an answered claim decides nothing, and the caller is given the stored
 * response; a different request under the key is IDEMPOTENCY_KEY_REUSED. Answer and Release belong
 * to one claim: a process whose claim was taken over after its lease writes nothing.
 *
 * Crash semantics: a claim appended and never answered holds the key until `leaseUntil`; an answer
 * that could not be appended leaves the claim in flight, with the same outcome. Nothing is run twice
 * within a lease.
 */
export const idempotencyKey: Decider<IdempotencyKeyCommand, IdempotencyKeyEvent, IdempotencyKeyState> = {
  initialState: () => ({ status: 'free' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'IdempotencyKeyClaimed': {
        const { operation: _operation, ...claim } = event.data;
        return { status: 'inFlight', ...claim };
      }
      case 'IdempotentResponseRecorded':
        return state.status === 'inFlight' ? { ...state, status: 'answered', response: { status: event.data.status, body: event.data.body } } : state;
      case 'IdempotencyKeyReleased':
        return { status: 'free' };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'Claim': {
        const { now, leaseMs, ...claim } = command.data;
        const at = Date.parse(now);
        const claimed = [{ type: 'IdempotencyKeyClaimed' as const, data: { ...claim, claimedAt: now, leaseUntil: new Date(at + leaseMs).toISOString() } }];
        if (state.status === 'free' || at >= Date.parse(state.claimedAt) + IDEMPOTENCY_RETENTION_MS) return claimed;
        if (state.requestHash !== claim.requestHash) throw new ApiError('IDEMPOTENCY_KEY_REUSED', REUSED);
        if (state.status === 'answered') return [];
        if (at >= Date.parse(state.leaseUntil)) return claimed;
        throw new ApiError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed: retry once it has been answered');
      }
      case 'Answer':
        if (state.status !== 'inFlight' || state.claimId !== command.data.claimId) return [];
        return [{ type: 'IdempotentResponseRecorded', data: { projectId: state.projectId, keyHash: state.keyHash, claimId: state.claimId, executionId: command.data.executionId, ...command.data.response } }];
      case 'Release':
        if (state.status !== 'inFlight' || state.claimId !== command.data.claimId) return [];
        return [{ type: 'IdempotencyKeyReleased', data: { projectId: state.projectId, keyHash: state.keyHash, claimId: state.claimId } }];
    }
  },
};
