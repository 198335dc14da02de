import { GENESIS_HASH, type HashedContent, chainHash, contentHash } from './eventHash.ts';

export interface ChainedEvent extends HashedContent {
  revision: number;
  position: number;
  /** The chain hash the log stored with the event (null: the log has none). */
  hash: string | null;
  /** The data as stored when personal data in it is sealed (`data` is then the opened data): what the hash covers. */
  sealedData?: unknown;
}

export type ChainProblem =
  | { kind: 'changed'; streamId: string; revision: number; position: number | null; detail: string }
  | { kind: 'removed'; streamId: string; revision: number; position: number | null; detail: string }
  | { kind: 'reordered'; streamId: string; revision: number; position: number; detail: string };

/** Where one stream's chain stands after the events seen so far. */
export interface ChainState {
  nextRevision: number;
  head: string;
}

export const emptyChain = (): ChainState => ({ nextRevision: 0, head: GENESIS_HASH });

/**
 * One step of verifying a stream's chain: the event must be the next revision and its stored hash
 * must be the link recomputed from the previous one and its own content. Pure: the caller reads.
 * The chain orders each stream's events; the log positions (the order across streams) are not part
 * of it: writers racing on one stream may even commit revisions in an order their positions do not
 * follow.
 */
export function verifyNext(state: ChainState, event: ChainedEvent): { state: ChainState } | { problem: ChainProblem } {
  const at = { streamId: event.streamId, revision: event.revision, position: event.position };
  if (event.revision > state.nextRevision) return { problem: { kind: 'removed', ...at, revision: state.nextRevision, detail: `revision ${state.nextRevision} is missing: removed, or moved later in the log (the next event found is revision ${event.revision})` } };
  if (event.revision < state.nextRevision) return { problem: { kind: 'reordered', ...at, detail: `revision ${event.revision} appears again, or out of order, after revision ${state.nextRevision - 1}` } };
  if (event.hash === null) return { problem: { kind: 'changed', ...at, detail: 'the event has no chain hash' } };
  const expected = chainHash(state.head, event.revision, contentHash(event.sealedData === undefined ? event : { ...event, data: event.sealedData }));
  if (expected !== event.hash) {
    return { problem: { kind: 'changed', ...at, detail: `its content or its place in the chain differs from what was appended (stored ${event.hash.slice(0, 12)}…, recomputed ${expected.slice(0, 12)}…)` } };
  }
  return { state: { nextRevision: state.nextRevision + 1, head: event.hash } };
}

/** The end of a stream's chain against the head the log recorded: an event removed from the end shows here. */
export function verifyHead(streamId: string, state: ChainState, recorded: { revision: number; hash: string | null } | null): ChainProblem | null {
  if (!recorded) return null;
  if (recorded.revision !== state.nextRevision - 1) {
    return { kind: 'removed', streamId, revision: state.nextRevision, position: null, detail: `the stream's head is revision ${recorded.revision}, but the events end at revision ${state.nextRevision - 1}` };
  }
  if (recorded.hash !== null && recorded.hash !== state.head) {
    return { kind: 'changed', streamId, revision: recorded.revision, position: null, detail: "the stream's recorded head hash differs from its last event's" };
  }
  return null;
}
