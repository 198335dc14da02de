import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/audit/canonicalJson.ts';
import type { Logger } from 'pino';
import { type CommandDependencies, type CommandMetadata } from '../commands/commandHandler.ts';
import { type HeldClaim, answerIdempotencyKey, claimIdempotencyKey, releaseIdempotencyKey } from '../commands/idempotencyCommands.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { StoredResponse } from '../domain/idempotency/idempotencyKey.ts';
import { type IdempotentOperation, idempotencyKeyHash } from '../domain/idempotency/idempotencyKeyEvents.ts';
import { type RunCaller, originOf } from './runCaller.ts';

/** What answering once per key needs: the log's commands, how long a claim holds, where trouble is logged. */
export interface IdempotentAnswering {
  commands: CommandDependencies;
  leaseMs: number;
  logger: Pick<Logger, 'warn'>;
}

/** One idempotent request: its key as sent (if any), and what makes two requests the same. */
export interface IdempotentCall {
  key: unknown;
  operation: IdempotentOperation;
  params: unknown;
  input: unknown;
}

// Stripe's bound; visible ASCII, so a key never smuggles spaces or control characters into logs.
const ACCEPTED_KEY = /^[\x21-\x7e]{1,255}$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Answers a call once per idempotency key (Stripe's semantics): without a key, `handle` just runs.
 * With one, the key is claimed in the log first; the same call again within 24 hours gets the first
 * answer (`replayed`), the same key for another call IDEMPOTENCY_KEY_REUSED, and a retry while the
 * first is in flight IDEMPOTENCY_KEY_IN_USE.
 *
 * What is kept: an answer about a run (success, pause, or a failure naming its `executionId`, as
 * `answerOfFailure` shapes it), sealed under that run's key. A refusal before any run began
 * (validation, a missing flow, no credits), an internal error, and an answer that names no run free
 * the key instead: nothing happened that a retry could repeat, and nothing is kept unsealed.
 */
export async function answerOnce(
  deps: IdempotentAnswering,
  caller: RunCaller,
  call: IdempotentCall,
  handle: () => Promise<StoredResponse>,
  answerOfFailure: (error: ApiError) => StoredResponse,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  if (call.key === undefined) return { response: await handle(), replayed: false };
  if (typeof call.key !== 'string' || !ACCEPTED_KEY.test(call.key)) {
    throw new ApiError('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key: send one key of 1-255 visible ASCII characters (a UUID is a good choice)');
  }
  const metadata = originOf(caller);
  const requestHash = sha256(canonicalJson({ operation: call.operation, params: call.params, body: call.input ?? null })!);
  const claim = await claimIdempotencyKey(
    deps.commands,
    { projectId: caller.projectId, keyHash: idempotencyKeyHash(call.key), operation: call.operation, requestHash, leaseMs: deps.leaseMs },
    metadata,
  );
  if (claim.kind === 'replay') return { response: claim.response, replayed: true };

  let response: StoredResponse;
  try {
    response = await handle();
  } catch (error) {
    const executionId = error instanceof ApiError ? error.extra?.executionId : undefined;
    if (error instanceof ApiError && typeof executionId === 'string') {
      await keep(deps, claim, executionId, answerOfFailure(error), metadata);
    } else {
      await free(deps, claim, metadata);
    }
    throw error;
  }
  const executionId = (response.body as { executionId?: unknown } | null)?.executionId;
  // An answer is sealed under its run's key: one that names no run would be stored in plaintext, so it is not kept.
  if (typeof executionId === 'string') await keep(deps, claim, executionId, response, metadata);
  else await free(deps, claim, metadata);
  return { response, replayed: false };
}

async function free(deps: IdempotentAnswering, claim: HeldClaim, metadata: CommandMetadata) {
  await releaseIdempotencyKey(deps.commands, claim, metadata).catch((releaseError: unknown) =>
    deps.logger.warn({ err: releaseError }, 'could not free the Idempotency-Key of a request; it frees itself when its lease runs out'),
  );
}

/** A failure to keep the answer does not withhold it: the claim stays in flight until its lease runs out. */
async function keep(deps: IdempotentAnswering, claim: HeldClaim, executionId: string | null, response: StoredResponse, metadata: CommandMetadata) {
  await answerIdempotencyKey(deps.commands, claim, { executionId, response }, metadata).catch((error: unknown) =>
    deps.logger.warn({ err: error, executionId }, 'could not keep the answer of an Idempotency-Key; retries are refused IDEMPOTENCY_KEY_IN_USE until its lease runs out'),
  );
}
