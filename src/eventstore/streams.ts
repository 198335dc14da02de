import type { Decider } from '../domain/decider.ts';
import { type DomainEvent, decodeEvent } from '../domain/domainEvent.ts';
import type { AppendOptions, EventStore, EventToAppend, ExpectedRevision, ReadStreamOptions, RecordedEvent } from './eventStore.ts';
import { isConnectionLoss } from '../database/connectionLoss.ts';
import { RETRY_POLICIES } from '../domain/retry/retryPolicy.ts';
import { type RetryWaits, retrying } from '../supervision/retrying.ts';

/**
 * What every layer does with one stream: read and fold it through the upcasters, and append with a
 * retry of transient failures. They sit beside the port, below the commands, the engine and the API.
 */
export async function loadStream<Event extends DomainEvent, State>(
  eventStore: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
  options?: Pick<ReadStreamOptions, 'unreadable'>,
) {
  const recorded = await eventStore.readStream(streamId, options);
  const events = recorded.map((r) => decodeEvent(r.type, r.schemaVersion, r.data) as Event);
  return {
    state: events.reduce(decider.evolve, decider.initialState()),
    revision: recorded.length === 0 ? -1 : recorded.at(-1)!.revision,
    position: recorded.at(-1)?.position ?? 0,
    recorded,
    /** The stream's events decoded (through the upcasters), in order. */
    events,
  };
}

/** Appends, retrying a lost connection with the same event ids (the log deduplicates them), by the one retry policy. */
export function appendWithRetry(eventStore: EventStore, streamId: string, events: EventToAppend[], expected: ExpectedRevision, options?: AppendOptions, waits?: RetryWaits) {
  return retrying({ policy: RETRY_POLICIES.transientAppend, classify: (error) => (isConnectionLoss(error) ? 'retryable' : 'terminal'), ...waits }, () => eventStore.append(streamId, events, expected, options));
}

/** The last event of each stream that has one: the heads in one read, then each head's event. */
export async function lastEventsOf(eventStore: Pick<EventStore, 'readStream' | 'streamHeads'>, streamIds: string[]): Promise<Map<string, RecordedEvent>> {
  const heads = streamIds.length > 0 ? await eventStore.streamHeads(streamIds) : new Map<string, { revision: number }>();
  const last = await Promise.all([...heads].map(async ([streamId, head]) => (await eventStore.readStream(streamId, { fromRevision: head.revision, maxCount: 1 }))[0]));
  return new Map(last.filter((event) => event !== undefined).map((event) => [event.streamId, event]));
}
