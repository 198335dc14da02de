import { createHash } from 'node:crypto';
import { canonicalJson } from '../../canonicalJson.ts';

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

/**
 * The `call` of a server tool's request: the model turn that asked, the tool, and its arguments
 * (as canonical JSON, so key order does not matter). Not the provider's id for the call, which a
 * model asked again after a takeover names anew: the same call asked again carries the same key.
 */
export const serverToolCall = (round: number, toolName: string, args: unknown): string =>
  `tool:${round}:${toolName}:${createHash('sha256').update(canonicalJson(args)).digest('hex')}`;
