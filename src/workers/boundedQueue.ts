/**
 * A first-in, first-out queue of at most `bound` items: a push past it is refused (false), for the
 * caller to fall back on something durable. Shifts are O(1) amortized (a head index, the array
 * compacted once half of it is spent).
 */
export function createBoundedQueue<T>(bound: number) {
  let items: T[] = [];
  let head = 0;
  return {
    size: () => items.length - head,
    push(item: T): boolean {
      if (items.length - head >= bound) return false;
      items.push(item);
      return true;
    },
    shift(): T | undefined {
      if (head >= items.length) return undefined;
      const item = items[head++];
      if (head * 2 >= items.length) {
        items = items.slice(head);
        head = 0;
      }
      return item;
    },
    clear() {
      items = [];
      head = 0;
    },
  };
}
