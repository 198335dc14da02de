import { describe, expect, it } from 'vitest';
import type { EventStore, SubscriptionOptions } from '../../src/eventstore/eventStore.ts';
import { subscribeProjections } from '../../src/projections/projectionSubscription.ts';

describe("the projections' subscription", () => {
  it('stopped while it reads where to start, it makes no subscription and its task ends', async () => {
    let answerMinimum: (position: number) => void = () => undefined;
    const subscribed: SubscriptionOptions[] = [];
    const eventStore = { subscribe: (options: SubscriptionOptions) => (subscribed.push(options), { done: new Promise<void>(() => undefined), stop: async () => undefined }) } as unknown as EventStore;
    let asked = false;
    const task = subscribeProjections({
      eventStore,
      batchSize: 10,
      retryDue: () => Infinity,
      ensureCheckpoints: async () => undefined,
      minimumPosition: () => ((asked = true), new Promise<number>((resolve) => (answerMinimum = resolve))),
      batch: async () => 0,
    });
    await expect.poll(() => asked).toBe(true);
    const stopped = task.stop();
    answerMinimum(0);
    await stopped;
    await task.done;
    expect(subscribed).toEqual([]);
  });
});
