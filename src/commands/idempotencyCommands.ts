import { randomUUID } from 'node:crypto';
import { type IdempotencyKeyState, type StoredResponse, idempotencyKey } from '../domain/idempotency/idempotencyKey.ts';
import { type IdempotentOperation, idempotencyKeyStream } from '../domain/idempotency/idempotencyKeyEvents.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

export interface IdempotentRequest {
  projectId: string;
  /** SHA-256 of the caller's key: the log never holds the key itself. */
  keyHash: string;
  operation: IdempotentOperation;
  /** SHA-256 of what makes two requests the same (operation, flow, canonical body). */
  requestHash: string;
  leaseMs: number;
}

/** A key this request holds: it answers or releases it. */
export interface HeldClaim {
  kind: 'claimed';
  streamId: string;
  claimId: string;
  known: { state: IdempotencyKeyState; revision: number; position: number };
}

/** A claim this request holds, or the first request's answer to send again. */
export type IdempotencyClaim = HeldClaim | { kind: 'replay'; response: StoredResponse };

/** Takes the key for this request, or finds the answer it already has; refuses a key in use or reused (the decider). */
export async function claimIdempotencyKey(deps: CommandDependencies, request: IdempotentRequest, metadata: CommandMetadata): Promise<IdempotencyClaim> {
  const { leaseMs, ...claim } = request;
  const streamId = idempotencyKeyStream(request.projectId, request.keyHash);
  const claimId = randomUUID();
  const result = await handleCommand(deps, streamId, idempotencyKey, { type: 'Claim', data: { ...claim, claimId, now: deps.now().toISOString(), leaseMs } }, metadata);
  if (result.events.length === 0 && result.state.status === 'answered') return { kind: 'replay', response: result.state.response };
  return { kind: 'claimed', streamId, claimId, known: { state: result.state, revision: result.revision, position: result.position } };
}

/** Keeps the answer for retries. A claim taken over meanwhile (this request outlived its lease) keeps nothing. */
export async function answerIdempotencyKey(
  deps: CommandDependencies,
  claim: HeldClaim,
  answer: { executionId: string | null; response: StoredResponse },
  metadata: CommandMetadata,
) {
  await handleCommand(deps, claim.streamId, idempotencyKey, { type: 'Answer', data: { claimId: claim.claimId, ...answer } }, metadata, claim.known);
}

/** Frees the key: the request was refused before any run began, so a retry should be tried anew. */
export async function releaseIdempotencyKey(deps: CommandDependencies, claim: HeldClaim, metadata: CommandMetadata) {
  await handleCommand(deps, claim.streamId, idempotencyKey, { type: 'Release', data: { claimId: claim.claimId } }, metadata, claim.known);
}
