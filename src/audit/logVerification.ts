import { type ChainProblem, type ChainState, emptyChain, verifyHead, verifyNext } from '../domain/audit/chainVerification.ts';
import { type EventStore, type RecordedEvent, type UnreadableEvent, unreadableEventOf } from '../eventstore/eventStore.ts';
import { readWholeLog } from './logPages.ts';

const PAGE = 1000;

export interface LogVerification {
  streams: number;
  events: number;
  /** The first event found changed, removed or reordered; null when every chain holds. */
  problem: ChainProblem | null;
  /**
   * Runs whose personal data was erased in what was read: how many, and the first 1,000 with when
   * and why. Their events still verify: the chain covers the sealed text, not the erased content.
   */
  erasedRuns: { count: number; runs: ErasedRun[] };
  /**
   * Events holding a sealed value that does not open under its run's stored key (sealed under
   * another, or changed): a finding, not an abort. How many, and the first 1,000 with where they are.
   * Their chains still verify (the hash covers the sealed text as stored).
   */
  unreadable: { count: number; events: UnreadableEvent[] };
}


export interface ErasedRun {
  executionId: string;
  erasedAt: string;
  trigger: string;
  /** The operator's reason (for a retention erasure, the service's). */
  reason: string;
  /** For an erasure by content, the input field it matched (never the value); else null. */
  field: string | null;
}

const LISTED_ERASURES = 1000;

/** Collects what verification found besides a break: the erasures and the unreadable events among the events read. */
function findings() {
  const found = { erasedRuns: { count: 0, runs: [] as ErasedRun[] }, unreadable: { count: 0, events: [] as UnreadableEvent[] } };
  return {
    see(event: RecordedEvent) {
      const unreadable = unreadableEventOf(event);
      if (unreadable !== null) {
        found.unreadable.count++;
        if (found.unreadable.events.length < LISTED_ERASURES) found.unreadable.events.push(unreadable);
      }
      if (event.type !== 'RunDataErased') return;
      found.erasedRuns.count++;
      // As stored: the erasure itself holds nothing sealed (its reason and field are operational).
      const data = event.data as { executionId: string; erasedAt: string; trigger: string; reason?: string; match?: { field?: string } | null };
      if (found.erasedRuns.runs.length < LISTED_ERASURES) found.erasedRuns.runs.push({ executionId: data.executionId, erasedAt: data.erasedAt, trigger: data.trigger, reason: data.reason ?? '', field: data.match?.field ?? null });
    },
    found,
  };
}

/**
 * Recomputes the hash chains of the log (or of one stream) from the events as stored, and reports
 * the first break: an event whose content or place differs from what was appended (`changed`), a
 * revision missing from its stream or moved later in the log (`removed`), a revision repeated or
 * moved earlier (`reordered`, also for an event whose place in the whole log was changed, across
 * streams), or a stream whose recorded head is not its last event.
 */
export async function verifyLog(eventStore: EventStore, options: { streamId?: string } = {}): Promise<LogVerification> {
  return options.streamId === undefined ? verifyWholeLog(eventStore) : verifyStream(eventStore, options.streamId);
}

async function verifyStream(eventStore: EventStore, streamId: string): Promise<LogVerification> {
  let state = emptyChain();
  let events = 0;
  const seen = findings();
  for (let from = 0; ; from += PAGE) {
    const page = await eventStore.readStream(streamId, { fromRevision: from, maxCount: PAGE, unreadable: 'mark' });
    for (const event of page) {
      const step = verifyNext(state, event);
      events++;
      seen.see(event);
      if ('problem' in step) return { streams: 1, events, problem: step.problem, ...seen.found };
      state = step.state;
    }
    if (page.length < PAGE) break;
  }
  const heads = await eventStore.streamHeads([streamId]);
  return { streams: events > 0 || heads.has(streamId) ? 1 : 0, events, problem: verifyHead(streamId, state, heads.get(streamId) ?? null), ...seen.found };
}

async function verifyWholeLog(eventStore: EventStore): Promise<LogVerification> {
  // One chain state per stream seen: a verification pass holds every stream's head once.
  const chains = new Map<string, ChainState>();
  // Writers racing on one stream can leave a later revision earlier in the log: it waits here for its predecessor.
  const waiting = new Map<string, Map<number, RecordedEvent>>();
  let events = 0;
  const seen = findings();
  const advance = (event: RecordedEvent): ChainProblem | null => {
    const step = verifyNext(chains.get(event.streamId) ?? emptyChain(), event);
    if ('problem' in step) return step.problem;
    chains.set(event.streamId, step.state);
    const next = waiting.get(event.streamId)?.get(step.state.nextRevision);
    if (!next) return null;
    waiting.get(event.streamId)!.delete(next.revision);
    return advance(next);
  };
  let found: ChainProblem | null = null;
  // Positions rise in log order (each append's are reserved with its transaction's place): one that falls was moved.
  let lastPosition = -1;
  await readWholeLog(eventStore, (page) => {
    for (const event of page) {
      events++;
      seen.see(event);
      if (event.position <= lastPosition) {
        found = movedInLog(event, lastPosition);
        return 'stop';
      }
      lastPosition = event.position;
      if (event.revision > (chains.get(event.streamId) ?? emptyChain()).nextRevision) {
        const held = waiting.get(event.streamId) ?? new Map<number, RecordedEvent>();
        waiting.set(event.streamId, held.set(event.revision, event));
        continue;
      }
      found = advance(event);
      if (found) return 'stop';
    }
    return undefined;
    // A sealed value that does not open is a finding (above), not an abort of the whole verification.
  }, { unreadable: 'mark' });
  if (found) return { streams: chains.size, events, problem: found, ...seen.found };
  // A revision still waiting at the end lost its predecessor.
  for (const held of waiting.values()) {
    const first = [...held.values()].sort((a, b) => a.revision - b.revision)[0];
    if (!first) continue;
    const step = verifyNext(chains.get(first.streamId) ?? emptyChain(), first);
    if ('problem' in step) return { streams: chains.size, events, problem: step.problem, ...seen.found };
  }
  const ids = [...chains.keys()];
  for (let i = 0; i < ids.length; i += PAGE) {
    const heads = await eventStore.streamHeads(ids.slice(i, i + PAGE));
    for (const streamId of ids.slice(i, i + PAGE)) {
      const problem = verifyHead(streamId, chains.get(streamId)!, heads.get(streamId) ?? null);
      if (problem) return { streams: chains.size, events, problem, ...seen.found };
    }
  }
  return { streams: chains.size, events, problem: null, ...seen.found };
}


/** An event read after a higher position: its place in the log (or the other's) was changed. */
function movedInLog(event: RecordedEvent, after: number): ChainProblem {
  return {
    kind: 'reordered',
    streamId: event.streamId,
    revision: event.revision,
    position: event.position,
    detail: `its place in the log was changed: position ${event.position} comes after position ${after} in log order, where positions only rise (events moved or swapped, within or across streams)`,
  };
}
