import type { EventStore, OpenInBatch, RecordedEvent, Subscription } from '../eventstore/eventStore.ts';
import type { SupervisedTask } from '../supervision/supervisor.ts';
import { CheckpointMoved } from './projectionBatch.ts';

/** What the projections' subscription reads with and hands its batches to. */
export interface ProjectionReading {
  eventStore: EventStore;
  batchSize: number;
  /** When the earliest stalled projection is due for a retry (ms since the epoch), or Infinity. */
  retryDue: () => number;
  ensureCheckpoints: () => Promise<void>;
  minimumPosition: () => Promise<number>;
  /** Applies a batch read after `from` (`open`: opens its sealed events a projection asks for); answers the position read up to. */
  batch: (from: number, events: RecordedEvent[], open?: OpenInBatch) => Promise<number>;
}

/** The subscription as a supervised task: reading on from the lowest checkpoint until stopped. */
export function subscribeProjections(deps: ProjectionReading): SupervisedTask {
  const { eventStore, batchSize, retryDue, ensureCheckpoints, minimumPosition, batch } = deps;
  let current: Subscription | undefined;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;
  const done = (async () => {
    await ensureCheckpoints();
    while (!stopped) {
      let failure: unknown;
      let cursor = await minimumPosition();
      // Stopped while reading where to start: a subscription made now would run on with nobody to stop it.
      if (stopped) break;
      current = eventStore.subscribe({
        from: cursor,
        batchSize,
        // None opened as read: a projection opens what it keeps (Projection.opens, context.open).
        openSealed: [],
        // Every projection that opens sealed data handles RunDataErased (projectionRunner checks).
        appliesErasures: true,
        handler: async (events, open) => {
          cursor = await batch(cursor, events, open);
          // A stalled projection's retry comes due: go back to its checkpoint then, even if the log is quiet.
          const due = retryDue();
          clearTimeout(retryTimer);
          if (Number.isFinite(due)) retryTimer = setTimeout(() => void current?.stop(), Math.max(0, due - Date.now()));
        },
        onError: (error) => (failure = error),
      });
      await current.done;
      clearTimeout(retryTimer);
      if (failure !== undefined && !(failure instanceof CheckpointMoved)) throw failure;
    }
  })();
  return {
    done,
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      await current?.stop();
      await done.catch(() => undefined);
    },
  };
}
