import type { Kysely } from 'kysely';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { createStreamOwners } from './streamOwners.ts';

export interface LiveEventFilter {
  organizationId?: string | undefined;
  executionId?: string | undefined;
}

export interface LiveEvent {
  position: number;
  streamId: string;
  type: string;
  occurredAt: string;
  principal: unknown;
  correlationId: string;
  data: unknown;
}

/**
 * The log's events after `from` (a position, exclusive), in log order, as they are appended,
 * filtered by organization or run, until `signal` aborts. Built on the store's catch-up
 * subscription: the next batch is read only once the consumer has taken this one, so a slow reader
 * holds its place in the log instead of a growing queue. Data is decoded through the upcasters.
 * `readModelsAt`: waits until the read models hold a position (bounded by the caller), so a reader
 * that refetches a listing when an event comes reads one that has it.
 */
export async function* liveEvents(
  deps: { eventStore: EventStore; db: Kysely<ReadModels>; readModelsAt?: (position: number) => Promise<void> },
  from: number,
  filter: LiveEventFilter,
  signal: AbortSignal,
): AsyncGenerator<LiveEvent> {
  const owners = createStreamOwners(deps.db);
  const matches = async (event: RecordedEvent) => {
    if (!filter.organizationId && !filter.executionId) return true;
    const owner = await owners.of(event);
    return (!filter.organizationId || owner.organizationId === filter.organizationId) && (!filter.executionId || owner.executionId === filter.executionId);
  };

  let offer: ((batch: { events: RecordedEvent[]; taken: () => void } | { error: unknown }) => void) | undefined;
  let next = new Promise<{ events: RecordedEvent[]; taken: () => void } | { error: unknown }>((resolve) => (offer = resolve));
  const hand = (batch: { events: RecordedEvent[]; taken: () => void } | { error: unknown }) => {
    const give = offer!;
    next = new Promise((resolve) => (offer = resolve));
    give(batch);
  };
  // Batches handed over but not yet taken: released when the reader leaves, so the subscription can stop.
  const unfinished = new Set<() => void>();
  let leaving = false;
  const subscription = deps.eventStore.subscribe({
    from,
    batchSize: 200,
    handler: (events) =>
      leaving
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const taken = () => {
              unfinished.delete(taken);
              resolve();
            };
            unfinished.add(taken);
            hand({ events, taken });
          }),
    onError: (error) => hand({ error }),
  });
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const batch = await Promise.race([next, aborted]);
      if (batch === 'aborted') return;
      if ('error' in batch) throw batch.error;
      // A reader refetches the read models when an event comes: it is told once they hold it.
      if (deps.readModelsAt && batch.events.length > 0) await deps.readModelsAt(batch.events.at(-1)!.position);
      for (const event of batch.events) {
        if (!(await matches(event))) continue;
        const { data } = decodeRecorded(event);
        yield { position: event.position, streamId: event.streamId, type: event.type, occurredAt: event.metadata.occurredAt, principal: event.metadata.principal, correlationId: event.metadata.correlationId, data };
      }
      batch.taken();
    }
  } finally {
    leaving = true;
    for (const taken of [...unfinished]) taken();
    await subscription.stop();
  }
}
