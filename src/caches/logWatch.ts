import type { EventStore, EventToAppend, RecordedEvent, Subscription } from '../eventstore/eventStore.ts';
import type { SupervisedTask, Supervisor } from '../supervision/supervisor.ts';

/** What a cache learns of one event: enough to drop what it holds about it. */
export interface LogChange {
  streamId: string;
  type: string;
  data: unknown;
  /** The event's log position (for appends of this process, the position of its append's last event). */
  position: number;
}

export interface LogWatcher {
  /** Which events are told to `changed` (called for every event: keep it cheap). */
  wants(change: LogChange): boolean;
  changed(change: LogChange): void;
  /** The watch stopped or restarted: changes may have been missed, so forget everything. */
  reset(): void;
}

/**
 * Tells the process's caches what changed in the log, so they can skip a round trip per request
 * and still never serve what the log has overruled. It follows the log from `now` (appends already
 * in flight included), under the supervisor; appends made by this process are told at once, before
 * their `append` resolves, so the writer reads its own change; other processes' changes within
 * `readIntervalMs` of their commit (one read of the log per interval under load). While the watch is not running, or
 * has not proven within `maxLagMs` that it read everything the log had made readable (a stuck read,
 * a stalled connection, a handler that hangs), `live` is false and caches must read through: a
 * change they might have missed is never trusted.
 */
export function createLogWatch(options: { eventStore: EventStore; supervisor: Supervisor; maxLagMs?: number; readIntervalMs?: number; now?: () => number }) {
  const maxLagMs = options.maxLagMs ?? 5000;
  // Other processes' changes reach the caches within this (and `live` needs one within maxLagMs): a read per interval under load, not one per commit.
  const readIntervalMs = options.readIntervalMs ?? 25;
  const now = options.now ?? Date.now;
  const watchers = new Set<LogWatcher>();
  let running = false;
  let caughtUpAt = Number.NEGATIVE_INFINITY;
  let handle: { stop(): Promise<void> } | undefined;

  function tell(changes: LogChange[]) {
    for (const watcher of watchers) for (const change of changes) if (watcher.wants(change)) watcher.changed(change);
  }

  function goDark() {
    running = false;
    caughtUpAt = Number.NEGATIVE_INFINITY;
    for (const watcher of watchers) watcher.reset();
  }

  function run(): SupervisedTask {
    goDark();
    let ended = false;
    let failure: unknown;
    let readStartedAt = Number.NEGATIVE_INFINITY;
    const subscription: Subscription = options.eventStore.subscribe({
      from: 'now',
      caughtUpReadIntervalMs: readIntervalMs,
      handler: async (events: RecordedEvent[]) => tell(events.map((e) => ({ streamId: e.streamId, type: e.type, data: e.data, position: e.position }))),
      onError: (error) => {
        ended = true;
        failure = error;
      },
      // Current as of when the read began, not when it returned: a read may miss what committed meanwhile.
      onReadStart: () => {
        readStartedAt = now();
      },
      onCaughtUp: () => {
        if (running) caughtUpAt = readStartedAt;
      },
    });
    void subscription.started.then(() => {
      if (!ended) running = true;
    });
    return {
      // Ending without `stop` is a failure (the supervisor restarts the watch); either way caches stop trusting.
      done: subscription.done.then(() => {
        goDark();
        if (failure !== undefined) throw failure;
      }),
      async stop() {
        ended = true;
        await subscription.stop();
      },
    };
  }

  return {
    /** True while the watch runs and has been current within `maxLagMs`. */
    get live() {
      return running && now() - caughtUpAt <= maxLagMs;
    },
    watch(watcher: LogWatcher): () => void {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },
    /** Runs the watch under the supervisor (once per process; later calls do nothing). */
    start() {
      handle ??= options.supervisor.supervise('log-watch', run);
    },
    async stop() {
      const stopping = handle;
      handle = undefined;
      await stopping?.stop();
      goDark();
    },
    /** The event store as this process uses it: its own appends are told to the watchers as they succeed. */
    observe(store: EventStore): EventStore {
      return {
        ...store,
        async append(streamId, events: EventToAppend[], expected, appendOptions) {
          const result = await store.append(streamId, events, expected, appendOptions);
          if (watchers.size > 0) tell(events.map((e) => ({ streamId, type: e.type, data: e.data, position: result.position })));
          return result;
        },
      };
    },
  };
}

export type LogWatch = ReturnType<typeof createLogWatch>;
