/**
 * A Map that keeps at most `max` entries, the oldest set first out. For entries used soon after they
 * are made (a block between its start and end, a run's key between its first and later events): no
 * recency bookkeeping is needed, and unlike lru-cache, deleting its last entry does not empty a store
 * of `max` slots (which a one-block run paid for each time).
 */
export function createBoundedMap<K, V>(max: number) {
  const entries = new Map<K, V>();
  return {
    get: (key: K) => entries.get(key),
    set(key: K, value: V) {
      if (!entries.has(key) && entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
    },
    delete: (key: K) => void entries.delete(key),
  };
}
