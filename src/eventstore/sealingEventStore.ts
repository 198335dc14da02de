import { ERASED, openData, runToOpen, runToSeal, sealEvents } from '../domain/privacy/sealedFields.ts';
import { ExecutionRequested, RunDataErased } from '../domain/execution/executionEvents.ts';
import { type DataKey, SealedValueUnreadableError, createRunDataCipher, newDataKey } from '../security/runDataCipher.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';
import { SealedPartMissingError, createSealedTextOpener, holderRevision, revisionKey } from './sealedTextOpener.ts';
import { type AppendOptions, type EventStore, type EventToAppend, type OpenInBatch, type RecordedEvent, type SubscriptionOptions, WrongExpectedRevision } from './eventStore.ts';

/**
 * The event log with personal data sealed (src/domain/privacy/sealedFields.ts): every append seals
 * the fields that can hold it under their run's data key before the adapter hashes and stores the
 * event, and every read opens them again, or reads them as erased once the run's key is gone. The
 * hash chain covers the sealed text, so an erasure leaves every verification intact; verifiers use
 * `sealedData`, the data as stored.
 */
export function sealingEventStore(inner: EventStore, keys: RunDataKeys): EventStore {
  const cipher = createRunDataCipher();
  /** The events sealed, and the new runs' keys in the options; at once where every key is at hand (no turn of the event loop lost). */
  function seal(events: EventToAppend[], options: AppendOptions | undefined): Sealed | Promise<Sealed> {
    const runs = new Set<string>();
    const newRuns = new Set<string>();
    for (const event of events) {
      const run = runToSeal(event.type, event.data);
      if (run === null) continue;
      runs.add(run);
      // A run whose request is in this append is new: its key is stored with its events, where the adapter can.
      if (inner.storesDataKeys && event.type === ExecutionRequested.type) newRuns.add(run);
    }
    if (runs.size === 0) return { events, options };
    const dataKeys: { executionId: string; wrappedKey: string }[] = [];
    const keyOf = new Map<string, DataKey | 'erased'>();
    const stored: Promise<void>[] = [];
    for (const run of runs) {
      if (newRuns.has(run)) {
        const made = keys.forNewRun(run);
        dataKeys.push({ executionId: run, wrappedKey: made.wrappedKey });
        keyOf.set(run, made.key);
        continue;
      }
      const known = keys.madeHere(run);
      if (known) keyOf.set(run, known);
      else stored.push(keys.forSealing(run).then((key) => void keyOf.set(run, key)));
    }
    const sealAll = (): Sealed => {
      const sealed = sealEvents(events, (runId, holderEventId, parts) => {
        const key = keyOf.get(runId)!;
        // An erased run's later events (a late delivery) are sealed under a key nobody keeps: they read as erased.
        return cipher.seal(key === 'erased' ? newDataKey() : key, runId, holderEventId, parts);
      });
      const sealedEvents = events.map((event, i) => (sealed[i]!.sealed ? { ...event, data: sealed[i]!.data, metadata: { ...event.metadata, sealed: true as const } } : event));
      return { events: sealedEvents, options: dataKeys.length > 0 ? { ...options, dataKeys } : options };
    };
    return stored.length > 0 ? Promise.all(stored).then(sealAll) : sealAll();
  }

  /**
   * The events with their sealed fields opened (in the types `only` names, when given; in the others
   * they read as their erased values); `madeHere`: with the keys this process made, unasked. The
   * erasures in `read` (what was read with them) count.
   */
  async function open(recorded: RecordedEvent[], only?: readonly string[], madeHere = false, read: readonly RecordedEvent[] = recorded, erasedCopy = unopened, markUnreadable = false): Promise<RecordedEvent[]> {
    const sealed = recorded.filter((r) => r.metadata.sealed === true);
    if (sealed.length === 0) return recorded;
    const toOpen = only === undefined ? sealed : sealed.filter((r) => only.includes(r.type));
    if (toOpen.length === 0) return recorded.map((r) => (r.metadata.sealed !== true ? r : erasedCopy(r)));
    const [holders, states] = await Promise.all([
      holdersOf(toOpen, read === recorded ? [recorded] : [read, recorded]),
      keys.forOpening([...new Set(toOpen.map((r) => runToOpen(r.data)).filter((run) => run !== null))], { madeHere }),
    ]);
    // An erasure recorded in what is read counts even before its key is removed (it is removed just after).
    for (const r of read) if (r.type === RunDataErased.type) states.set((r.data as { executionId: string }).executionId, 'erased');
    const openText = createSealedTextOpener(cipher, (run) => states.get(run) ?? 'none', (event, back) => holders.get(revisionKey(event.streamId, event.revision - back)));
    const chosen = new Set(toOpen);
    const openOne = markUnreadable ? (r: RecordedEvent) => openedOrMarked(r, openText(r)) : (r: RecordedEvent) => opened(r, openText(r));
    return recorded.map((r) => (r.metadata.sealed !== true ? r : chosen.has(r) ? openOne(r) : erasedCopy(r)));
  }

  /**
   * The events, as stored, holding the boxes of the parts `toOpen` refers to: from what was read with
   * them, or, where a read began or a batch was cut inside an append, from the log.
   */
  async function holdersOf(toOpen: readonly RecordedEvent[], inHand: readonly (readonly RecordedEvent[])[]): Promise<Map<string, RecordedEvent>> {
    const wanted = new Map<string, { streamId: string; revision: number }>();
    for (const r of toOpen) {
      const at = holderRevision(r);
      if (at !== null) wanted.set(revisionKey(at.streamId, at.revision), at);
    }
    const found = new Map<string, RecordedEvent>();
    if (wanted.size === 0) return found;
    for (const list of inHand) {
      for (const r of list) {
        const key = revisionKey(r.streamId, r.revision);
        if (wanted.has(key)) found.set(key, asStored(r));
      }
    }
    const missing = [...wanted].filter(([key]) => !found.has(key));
    await Promise.all(
      missing.map(async ([key, at]) => {
        const [holder] = await inner.readStream(at.streamId, { fromRevision: at.revision, maxCount: 1 });
        if (holder?.revision === at.revision) found.set(key, holder);
      }),
    );
    return found;
  }

  // One process's subscribers are handed the same events, shared and frozen (joinedReads.ts): the
  // copy of a sealed event that a subscriber does not open is made once for all of them, and frozen
  // as the event is. Held only while the event is.
  const sharedCopies = new WeakMap<RecordedEvent, RecordedEvent>();
  const sharedUnopened = (recorded: RecordedEvent) => {
    let copy = sharedCopies.get(recorded);
    if (copy === undefined) {
      copy = unopened(recorded);
      Object.freeze(Object.freeze(copy).data);
      sharedCopies.set(recorded, copy);
    }
    return copy;
  };

  /**
   * A subscriber's batch as `openSealed` asks, and the way to open the rest of it later (OpenInBatch).
   * A sealed value that does not open is handed over marked (`unreadableFields`, read as erased): a
   * subscriber that stopped on it would stop for good, every projection or reactor behind it with it;
   * verify-log and projections verify name it.
   */
  async function handOver(options: SubscriptionOptions, events: RecordedEvent[]) {
    const madeHere = options.appliesErasures === true;
    const openLater: OpenInBatch = (some) => open(some.map(asStored), undefined, madeHere, events, unopened, true);
    return options.handler(await open(events, options.openSealed, madeHere, events, sharedUnopened, true), openLater);
  }

  return {
    kind: inner.kind,
    storesDataKeys: false,
    async append(streamId, events, expected, options) {
      const prepared = seal(events, options);
      const sealed = prepared instanceof Promise ? await prepared : prepared;
      try {
        const result = await inner.append(streamId, sealed.events, expected, sealed.options);
        // Stored with the events: from now on the keys are the runs' (runDataKeys.ts).
        for (const made of sealed.options?.dataKeys ?? []) keys.appended(made.executionId);
        return result;
      } catch (error) {
        // A run's first append that lost to another process's: that one's key is the run's.
        if (error instanceof WrongExpectedRevision) for (const made of sealed.options?.dataKeys ?? []) keys.forget(made.executionId);
        throw error;
      }
    },
    readStream: async (streamId, options) => {
      const recorded = await inner.readStream(streamId, options);
      return open(recorded, undefined, false, recorded, unopened, options?.unreadable === 'mark');
    },
    streamExists: (streamId) => inner.streamExists(streamId),
    streamHeads: (streamIds) => inner.streamHeads(streamIds),
    readAll: async (from, limit, options) => {
      const recorded = await inner.readAll(from, limit);
      return open(recorded, undefined, false, recorded, unopened, options?.unreadable === 'mark');
    },
    subscribe: (options) => inner.subscribe({ ...options, handler: (events) => handOver(options, events) }),
    headPosition: () => inner.headPosition(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

type Sealed = { events: EventToAppend[]; options: AppendOptions | undefined };

/** An event as the log stores it, whether it was opened for its reader or not. */
function asStored(recorded: RecordedEvent): RecordedEvent {
  if (recorded.sealedData === undefined) return recorded;
  const { sealedData, erasedFields: _erased, ...rest } = recorded;
  return { ...rest, data: sealedData };
}

/** A sealed event its reader does not open: its fields at their erased values (it still decodes), with no cipher call. */
function unopened(recorded: RecordedEvent): RecordedEvent {
  return { ...recorded, data: openData(recorded.type, recorded.data, () => ERASED).data, sealedData: recorded.data };
}

/** As `opened`, but a sealed text that does not open reads as erased, its fields named in `unreadableFields`. */
function openedOrMarked(recorded: RecordedEvent, openText: (runId: string, text: string) => Record<string, unknown> | typeof ERASED): RecordedEvent {
  try {
    return opened(recorded, openText);
  } catch (error) {
    if (!(error instanceof SealedValueUnreadableError) && !(error instanceof SealedPartMissingError)) throw error;
    const { data, erasedFields } = openData(recorded.type, recorded.data, () => ERASED);
    return { ...recorded, data, sealedData: recorded.data, unreadableFields: erasedFields };
  }
}

function opened(recorded: RecordedEvent, openText: (runId: string, text: string) => Record<string, unknown> | typeof ERASED): RecordedEvent {
  const { data, erasedFields } = openData(recorded.type, recorded.data, openText);
  return { ...recorded, data, sealedData: recorded.data, ...(erasedFields.length > 0 ? { erasedFields } : {}) };
}
