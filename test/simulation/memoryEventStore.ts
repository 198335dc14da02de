import { GENESIS_HASH, chainHash, contentHash } from '../../src/domain/audit/eventHash.ts';
import { unstorableJson } from '../../src/domain/validation/storableJson.ts';
import { type AppendResult, type EventStore, type RecordedEvent, type Subscription, type SubscriptionOptions, WrongExpectedRevision } from '../../src/eventstore/eventStore.ts';

/**
 * The event log in memory, for the deterministic simulation: the same contract as the PostgreSQL and
 * KurrentDB adapters (test/contract), and PostgreSQL's refusals of what jsonb cannot hold (a NUL, an
 * unpaired surrogate: SQLSTATE 22P05), so a run that would wedge on the real log wedges here too.
 * Everything happens in microtasks: no timers, no I/O, so a schedule is a function of its seed.
 */
export function createMemoryEventStore(options: { now?: () => Date } = {}): EventStore & { events: RecordedEvent[] } {
  const now = options.now ?? (() => new Date());
  const events: RecordedEvent[] = [];
  const streams = new Map<string, { events: RecordedEvent[]; head: string }>();
  const byId = new Map<string, { streamId: string; result: AppendResult }>();
  const listeners = new Set<() => void>();

  const append: EventStore['append'] = async (streamId, toAppend, expected) => {
    await Promise.resolve();
    const first = toAppend[0];
    const seen = first ? byId.get(first.id) : undefined;
    if (seen && seen.streamId === streamId) return seen.result; // a retried append whose reply was lost
    for (const event of toAppend) {
      const problem = unstorableJson(event.data, 'data') ?? unstorableJson(event.metadata, 'metadata');
      if (problem) throw Object.assign(new Error(`unsupported Unicode escape sequence (${problem.message})`), { code: '22P05' });
    }
    const stream = streams.get(streamId) ?? { events: [], head: GENESIS_HASH };
    const actual = stream.events.length - 1;
    const ok = expected === 'any' || (expected === 'no_stream' ? actual === -1 : expected === 'stream_exists' ? actual >= 0 : expected === actual);
    if (!ok) throw new WrongExpectedRevision(streamId, expected, actual);
    for (const event of toAppend) {
      const revision = stream.events.length;
      const hash = chainHash(stream.head, revision, contentHash({ streamId, ...event }));
      const recorded: RecordedEvent = { id: event.id, streamId, revision, position: events.length + 1, type: event.type, schemaVersion: event.schemaVersion, data: structuredClone(event.data), metadata: structuredClone(event.metadata), recordedAt: now(), hash };
      stream.events.push(recorded);
      stream.head = hash;
      events.push(recorded);
    }
    streams.set(streamId, stream);
    const result = { nextExpectedRevision: stream.events.length - 1, position: events.length };
    if (first) byId.set(first.id, { streamId, result });
    for (const listener of listeners) listener();
    return result;
  };

  function subscribe(options: SubscriptionOptions): Subscription {
    let position = options.from === 'now' ? events.length : options.from;
    let stopped = false;
    let running = false;
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const pump = async () => {
      if (running || stopped) return;
      running = true;
      try {
        while (!stopped && position < events.length) {
          options.onReadStart?.();
          const batch = events.slice(position, position + (options.batchSize ?? 500));
          position += batch.length;
          await options.handler(batch);
        }
        options.onCaughtUp?.();
      } catch (error) {
        stopped = true;
        listeners.delete(wake);
        options.onError?.(error);
        finish();
      } finally {
        running = false;
      }
      if (!stopped && position < events.length) void pump();
    };
    const wake = () => void pump();
    listeners.add(wake);
    void pump();
    return {
      started: Promise.resolve(),
      done,
      async stop() {
        stopped = true;
        listeners.delete(wake);
        finish();
      },
    };
  }

  return {
    kind: 'memory',
    events,
    append,
    async readStream(streamId, options = {}) {
      await Promise.resolve();
      const from = options.fromRevision ?? 0;
      return (streams.get(streamId)?.events ?? []).slice(from, options.maxCount === undefined ? undefined : from + options.maxCount);
    },
    async streamExists(streamId) {
      return (streams.get(streamId)?.events.length ?? 0) > 0;
    },
    async streamHeads(streamIds) {
      const heads = new Map<string, { revision: number; hash: string | null }>();
      for (const id of streamIds) {
        const stream = streams.get(id);
        if (stream && stream.events.length > 0) heads.set(id, { revision: stream.events.length - 1, hash: stream.head });
      }
      return heads;
    },
    async readAll(from, limit) {
      await Promise.resolve();
      return events.slice(from, from + limit);
    },
    subscribe,
    async headPosition() {
      return events.length;
    },
    async ping() {},
    async close() {
      listeners.clear();
    },
  };
}
