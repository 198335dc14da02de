/**
 * A Map that keeps at most `max` entries, the oldest set first out. For entries used soon after they
 * are made (a block between its start and end, a run's key between its first and later events): no
 * recency bookkeeping is needed, and unlike lru-cache, deleting its last entry does not empty a store
 * of `max` slots (which a one-block run paid for each time).
 *
 * The oldest entry is found by one iterator kept from eviction to eviction: a Map's iterator goes on
 * to entries set after it was made and passes over deleted ones, so every live entry lies ahead of
 * it. A fresh `keys().next()` for each eviction would walk every deleted slot at the front of V8's
 * table, which is only compacted when it fills: 8 µs per set at 10,000 entries (a run's key, once per run).
 */
export function createBoundedMap<K, V>(max: number) {
  const entries = new Map<K, V>();
  let oldest = entries.keys();
  const evictOldest = () => {
    let next = oldest.next();
    // An iterator that once ran out stays done (it only can with `max` 0): start another.
    if (next.done === true) {
      oldest = entries.keys();
      next = oldest.next();
    }
    if (next.done !== true) entries.delete(next.value);
  };
  return {
    get: (key: K) => entries.get(key),
    set(key: K, value: V) {
      if (!entries.has(key) && entries.size >= max) evictOldest();
      entries.set(key, value);
    },
    delete: (key: K) => void entries.delete(key),
    clear() {
      entries.clear();
      oldest = entries.keys();
    },
  };
}
