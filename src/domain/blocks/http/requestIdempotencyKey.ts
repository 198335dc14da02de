import { createHash } from 'node:crypto';

/**
 * The Idempotency-Key of a request a run makes: a digest of the run's id, the step, the loop item
 * and the call, so every retry of it, and a worker that takes the job over after a crash between
 * the request and its record, sends the same key, and a receiver that honours keys (Stripe's
 * semantics) files one ticket, not two. Nothing of the run's data is in it.
 */
export function requestIdempotencyKey(call: { executionId: string; stepIndex: number; blockName: string; iteration: number | null; call: string }): string {
  const named = JSON.stringify([call.executionId, call.stepIndex, call.blockName, call.iteration, call.call]);
  return createHash('sha256').update(`seqflow-request:${named}`).digest('hex');
}
