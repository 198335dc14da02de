import { createHash } from 'node:crypto';
import { z } from 'zod';
import { personal } from '../privacy/dataClass.ts';
import { aHash, anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

const sha256Hex = aHash(z.string().regex(/^[a-f0-9]{64}$/));

/** The calls an `Idempotency-Key` may guard. */
export const idempotentOperations = ['execute', 'jobs'] as const;
export type IdempotentOperation = (typeof idempotentOperations)[number];

/**
 * A request took a key. Only hashes reach the log: the key's (its stream's name) and the request's
 * (operation, flow and body), which a retry must match. `leaseUntil`: after it, a claim that was
 * never answered (its process died) may be taken by a retry.
 */
export const IdempotencyKeyClaimed = defineEvent(
  'IdempotencyKeyClaimed',
  1,
  z.object({
    projectId: anId(),
    keyHash: sha256Hex,
    claimId: z.uuid(),
    operation: z.enum(idempotentOperations),
    requestHash: sha256Hex,
    claimedAt: z.iso.datetime(),
    leaseUntil: z.iso.datetime(),
  }),
);

/** The answer a retry with the same key and request gets again: the status and body the first request got. */
export const IdempotentResponseRecorded = defineEvent(
  'IdempotentResponseRecorded',
  1,
  z.object({ projectId: anId(), keyHash: sha256Hex, claimId: z.uuid(), executionId: anId().nullable(), status: z.number().int().min(200).max(599), body: personal(z.unknown(), null) }),
);

/** The request was refused before any run began (a caller's mistake, a flow not found): nothing to repeat, the key is free again. */
export const IdempotencyKeyReleased = defineEvent('IdempotencyKeyReleased', 1, z.object({ projectId: anId(), keyHash: sha256Hex, claimId: z.uuid() }));

export type IdempotencyKeyEvent = EventOf<typeof IdempotencyKeyClaimed> | EventOf<typeof IdempotentResponseRecorded> | EventOf<typeof IdempotencyKeyReleased>;

/** What the log keeps of a key: its SHA-256 (hex). Claiming a key and looking one up hash it alike. */
export const idempotencyKeyHash = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** One stream per key and project: keys are scoped to the API key's project. */
export const idempotencyKeyStream = (projectId: string, keyHash: string) => `idempotency-${projectId}-${keyHash}`;
