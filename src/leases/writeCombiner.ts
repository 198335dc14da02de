/**
 * Combines small writes that arrive while one is in flight into the next one: the first write goes
 * at once, alone; those that arrive meanwhile wait and go together (up to `maxBatch`) when it is
 * done. Every caller's promise settles with its own batch: resolved once that batch is written,
 * rejected with that batch's error. One write in flight at a time, so a caller never waits for more
 * than the write before its own.
 */
export function createWriteCombiner<T>(write: (items: readonly T[]) => Promise<void>, maxBatch = 500) {
  const queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let writing = false;

  async function drain() {
    writing = true;
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      try {
        await write(batch.map((p) => p.item));
        for (const p of batch) p.resolve();
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    writing = false;
  }

  return (item: T): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
