import { ERASED, fieldsToSeal, openData, runsOf, sealData } from '../domain/privacy/sealedFields.ts';
import { RunDataErased } from '../domain/execution/executionEvents.ts';
import { newDataKey, openValue, sealValue } from '../security/runDataCipher.ts';
import type { KeyState, RunDataKeys } from '../security/runDataKeys.ts';
import type { EventStore, EventToAppend, RecordedEvent } from './eventStore.ts';

/**
 * The event log with personal data sealed (src/domain/privacy/sealedFields.ts): every append seals
 * the fields that can hold it under their run's data key before the adapter hashes and stores the
 * event, and every read opens them again, or reads them as erased once the run's key is gone. The
 * hash chain covers the sealed text, so an erasure leaves every verification intact; verifiers use
 * `sealedData`, the data as stored.
 */
export function sealingEventStore(inner: EventStore, keys: RunDataKeys): EventStore {
  async function seal(events: EventToAppend[]): Promise<EventToAppend[]> {
    const runs = [...new Set(events.flatMap((e) => runsOf(e.type, e.data)))];
    if (runs.length === 0) return events;
    const keyOf = new Map(await Promise.all(runs.map(async (run) => [run, await keys.forSealing(run)] as const)));
    return events.map((event) => {
      const { data, sealed } = sealData(event.type, event.data, (runId, field, value) => {
        const key = keyOf.get(runId)!;
        // An erased run's later events (a late delivery) are sealed under a key nobody keeps: they read as erased.
        return sealValue(key === 'erased' ? newDataKey() : key, event.id, field, value);
      });
      return sealed ? { ...event, data, metadata: { ...event.metadata, sealed: true } } : event;
    });
  }

  async function open(recorded: RecordedEvent[]): Promise<RecordedEvent[]> {
    const sealed = recorded.filter((r) => r.metadata.sealed === true);
    if (sealed.length === 0) return recorded;
    const states = await keys.forOpening([...new Set(sealed.flatMap((r) => fieldsToSeal(r.type, r.data).map((f) => f.runId)))]);
    // An erasure recorded in what is read counts even before its key is removed (it is removed just after).
    for (const r of recorded) if (r.type === RunDataErased.type) states.set((r.data as { executionId: string }).executionId, 'erased');
    return recorded.map((r) => (r.metadata.sealed === true ? opened(r, states) : r));
  }

  return {
    kind: inner.kind,
    append: async (streamId, events, expected, options) => inner.append(streamId, await seal(events), expected, options),
    readStream: async (streamId, options) => open(await inner.readStream(streamId, options)),
    streamExists: (streamId) => inner.streamExists(streamId),
    streamHeads: (streamIds) => inner.streamHeads(streamIds),
    readAll: async (from, limit) => open(await inner.readAll(from, limit)),
    subscribe: (options) => (options.openSealed === false ? inner.subscribe(options) : inner.subscribe({ ...options, handler: async (events) => options.handler(await open(events)) })),
    headPosition: () => inner.headPosition(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

function opened(recorded: RecordedEvent, states: Map<string, KeyState>): RecordedEvent {
  const { data, erasedFields } = openData(recorded.type, recorded.data, (runId, field, text) => {
    const key = states.get(runId);
    // No key row for a sealed field: nothing can open it, exactly as after an erasure.
    return Buffer.isBuffer(key) ? openValue(key, field, text) : ERASED;
  });
  return { ...recorded, data, sealedData: recorded.data, ...(erasedFields.length > 0 ? { erasedFields } : {}) };
}
