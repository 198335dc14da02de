import { ANY, type AppendStreamState, BACKWARDS, END, type KurrentDBClient, NO_STREAM, STREAM_EXISTS, StreamNotFoundError, WrongExpectedVersionError, jsonEvent } from '@kurrent/kurrentdb-client';
import { GENESIS_HASH, chainHash, contentHash } from '../../domain/audit/eventHash.ts';
import { type EventToAppend, type ExpectedRevision, WrongExpectedRevision } from '../eventStore.ts';
import type { StoredMetadata } from './kurrentDbRecords.ts';
import { RETRY_POLICIES } from '../../domain/retry/retryPolicy.ts';
import { retrying } from '../../supervision/retrying.ts';

const toStreamState = (expected: ExpectedRevision): AppendStreamState =>
  expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : expected === 'stream_exists' ? STREAM_EXISTS : BigInt(expected);

/** The stream's last event (revision and chain hash), or null when it has none. */
export async function lastOf(client: KurrentDBClient, streamId: string): Promise<{ revision: number; hash: string | null } | null> {
  try {
    for await (const resolved of client.readStream(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 })) {
      if (resolved.event) return { revision: Number(resolved.event.revision), hash: (resolved.event.metadata as StoredMetadata).chainHash ?? null };
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return null;
}

/**
 * One append with its hash chain in the events' metadata. KurrentDB cannot compute it on the
 * server, so the chain's start is read first (one more round trip than PostgreSQL), and the
 * append then expects exactly that revision: if another writer got in between, it conflicts and
 * is chained again on fresh state (for `any`/`stream_exists`) or reported (for a revision).
 */
async function appendChained(client: KurrentDBClient, streamId: string, events: EventToAppend[], expected: ExpectedRevision) {
  const last = expected === 'no_stream' ? null : await lastOf(client, streamId);
  let head = last?.hash ?? GENESIS_HASH;
  const firstRevision = (last?.revision ?? -1) + 1;
  const chained = events.map((e, i) => {
    const content = contentHash({ streamId, id: e.id, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata });
    head = chainHash(head, firstRevision + i, content);
    return jsonEvent({
      id: e.id,
      type: e.type,
      data: e.data as Record<string, unknown>,
      metadata: { ...e.metadata, schemaVersion: e.schemaVersion, $correlationId: e.metadata.correlationId, $causationId: e.metadata.causationId, contentHash: content, chainHash: head },
    });
  });
  const pinned: ExpectedRevision = typeof expected === 'number' || expected === 'no_stream' ? expected : last ? last.revision : expected === 'any' ? 'no_stream' : expected;
  return client.appendToStream(streamId, chained, { streamState: toStreamState(pinned) });
}

/** Appends with the hash chain, chaining again on fresh state when another writer moved the stream under an `any`/`stream_exists` append. */
export async function appendToKurrentDb(client: KurrentDBClient, streamId: string, events: EventToAppend[], expected: ExpectedRevision) {
  // Only a revision this append pinned itself (for `any`/`stream_exists`) is chained again, by the one retry policy.
  const pinnedByUs = expected === 'any' || expected === 'stream_exists';
  try {
    const result = await retrying({ policy: RETRY_POLICIES.chainConflict, classify: (error) => (pinnedByUs && error instanceof WrongExpectedVersionError ? 'retryable' : 'terminal') }, () => appendChained(client, streamId, events, expected));
    return { nextExpectedRevision: Number(result.nextExpectedRevision), position: Number(result.position?.commit ?? 0n) };
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    const actual = typeof error.actualState === 'bigint' ? Number(error.actualState) : -1;
    throw new WrongExpectedRevision(streamId, expected, actual);
  }
}
