import type { EventStore } from './eventStore.ts';

/**
 * The highest log position this process has appended, for read-your-writes: an answer to a write
 * carries it (every append the write made has finished by then, so it is at least the write's own
 * last position), and a later read asks the read models to show at least that much. Higher than
 * the caller's own write when other appends finished meanwhile, which only makes the read wait for
 * a little more.
 */
export function trackAppendedPositions(store: EventStore) {
  let highest = 0;
  return {
    store: {
      ...store,
      async append(streamId, events, expected, options) {
        const result = await store.append(streamId, events, expected, options);
        if (result.position > highest) highest = result.position;
        return result;
      },
    } satisfies EventStore,
    highest: () => highest,
  };
}
