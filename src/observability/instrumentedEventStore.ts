import type { EventStore } from '../eventstore/eventStore.ts';
import type { Metrics } from './metrics.ts';

/** The event store with every append of this process timed and counted. */
export function instrumentAppends(store: EventStore, metrics: Metrics): EventStore {
  return {
    ...store,
    async append(streamId, events, expected, options) {
      const end = metrics.appendDuration.startTimer();
      const result = await store.append(streamId, events, expected, options);
      end();
      metrics.eventsAppended.inc(events.length);
      return result;
    },
  };
}
