/**
 * Look-ups by key asked in one turn of the event loop, sent as one query: many readers opening
 * sealed events at once (a dispatcher with 32 deliveries in flight, each reading its delivery's
 * stream) asked for their runs' keys in a statement each. Each asker gets the answer for every key
 * of the query it joined (a key with no row is absent), and a query is sent only after everyone who
 * joined it had asked, so it sees whatever was committed before any of them asked (an erasure
 * included). At most `maxKeys` keys go in one query; more start the next. A failed query fails each
 * of its askers, as their own would have.
 */
export function turnBatchedLookup<K, V>(lookup: (keys: K[]) => Promise<Map<K, V>>, maxKeys = 1000): (keys: readonly K[]) => Promise<Map<K, V>> {
  let forming: Batch<K, V> | undefined;

  async function send(batch: Batch<K, V>) {
    try {
      const found = await lookup([...batch.keys]);
      for (const asker of batch.askers) asker.resolve(found);
    } catch (error) {
      for (const asker of batch.askers) asker.reject(error);
    }
  }

  return (keys) =>
    new Promise((resolve, reject) => {
      if (!forming || forming.keys.size + keys.length > maxKeys) {
        const batch: Batch<K, V> = { keys: new Set(), askers: [] };
        forming = batch;
        // After this turn's other askers (they run as promise callbacks before it).
        setImmediate(() => {
          if (forming === batch) forming = undefined;
          void send(batch);
        });
      }
      for (const key of keys) forming.keys.add(key);
      forming.askers.push({ resolve, reject });
    });
}

interface Batch<K, V> {
  keys: Set<K>;
  askers: Array<{ resolve: (found: Map<K, V>) => void; reject: (error: unknown) => void }>;
}
