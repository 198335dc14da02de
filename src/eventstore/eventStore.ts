import type { EventMetadata } from '../domain/events/eventMetadata.ts';

/**
 * The event-log port. Positions are numbers that increase along the log (`$all`) order; position 0
 * means "before the first event". A subscriber delivers every event once, in log order.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface EventToAppend {
  /** UUID; appending the same ids again (a retry after a lost reply) does not duplicate them. */
  id: string;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: EventMetadata;
}

export interface RecordedEvent {
  id: string;
  streamId: string;
  /** 0-based revision of the event within its stream. */
  revision: number;
  position: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: EventMetadata;
  recordedAt: Date;
  /** The event's link in its stream's hash chain (src/domain/audit/eventHash.ts); null where the log has none. */
  hash: string | null;
  /** The data as the log stores it, when personal data in it is sealed (sealingEventStore.ts): what the hash covers. */
  sealedData?: unknown;
  /** Sealed fields that read as their erased value: the run's data was erased. */
  erasedFields?: string[];
  /**
   * Sealed fields that could not be opened (read with `unreadable: 'mark'`), read as their erased
   * values: their text does not open under the run's stored key (it was sealed under another, or changed).
   */
  unreadableFields?: string[];
}

/** Where an event whose sealed value does not open is (a finding of verify-log and projections verify). */
export interface UnreadableEvent {
  streamId: string;
  revision: number;
  position: number;
  type: string;
  executionId: string | null;
  fields: string[];
}

/** Where a marked event is, as verify-log and projections verify report it; null for an event that opened. */
export function unreadableEventOf(event: RecordedEvent): UnreadableEvent | null {
  if (event.unreadableFields === undefined) return null;
  const executionId = (event.data as { executionId?: unknown }).executionId;
  return { streamId: event.streamId, revision: event.revision, position: event.position, type: event.type, executionId: typeof executionId === 'string' ? executionId : null, fields: event.unreadableFields };
}

export interface AppendResult {
  /** Revision of the stream's last event, to pass as the expected revision next time. */
  nextExpectedRevision: number;
  /** Log position of the last appended event: what read-your-writes waits for. */
  position: number;
}

export interface SubscriptionOptions {
  /**
   * Deliver events after this position (exclusive); 0 = from the start. `now`: every event that
   * commits from now on, including those of appends already in flight (some committed a moment
   * before may come too): what a cache that is invalidated from the log needs to miss nothing.
   */
  from: number | 'now';
  /**
   * Called with consecutive batches in log order; the next batch waits for it to resolve. `open`,
   * from a store that seals personal data: opens events of this batch handed over unopened (see
   * `openSealed`) as they would have been opened, for a reader that needs a sealed field only in some
   * of them (the jobs projection: only in runs that are jobs).
   */
  handler: (events: RecordedEvent[], open?: OpenInBatch) => Promise<void>;
  batchSize?: number;
  /** Called once when the handler throws or the store fails; the subscription then stops. */
  onError?: (error: unknown) => void;
  /** Called as a read of the log begins (for a live subscription: as it checks that it is current). */
  onReadStart?: () => void;
  /**
   * Called when the read that began at the last `onReadStart` handed the handler everything the log
   * had made readable (it reached the visibility horizon, or a live subscription is current): how a
   * cache proves it is not behind. Called at least once a second while the subscription keeps up,
   * never while it lags.
   */
  onCaughtUp?: () => void;
  /**
   * Once caught up, begin a read at most this often (ms), however many commits wake it meanwhile: a
   * subscriber that only has to be current within a bound (the caches' log watch) then sends a read
   * per interval instead of one per commit. Behind, it reads on at once. Unset: as soon as woken.
   * A hint for stores that read the log in rounds (PostgreSQL); stores that push events ignore it.
   */
  caughtUpReadIntervalMs?: number;
  /**
   * Sealed personal data is opened for the handler in events of these types only (unset: in every
   * event); in the others its fields hold their erased values, so they still decode. Opening costs a
   * key lookup per batch and a cipher call per event.
   */
  openSealed?: readonly string[];
  /**
   * The handler applies every RunDataErased itself, clearing what it kept of the run's data: a run
   * erased by another process after its events were appended may then be opened with the key this
   * process made for it (no key lookup), since the erasure event follows in the log and undoes it.
   */
  appliesErasures?: boolean;
}

/** Events of the batch being handled, opened (sealingEventStore.ts); the same events when none is sealed. */
export type OpenInBatch = (events: readonly RecordedEvent[]) => Promise<RecordedEvent[]>;

export interface Subscription {
  stop(): Promise<void>;
  /** Resolves once the start point is fixed (for `now`: every event committed later will come), or when the subscription ends first. Never rejects. */
  readonly started: Promise<void>;
  /** Resolves when the subscription has stopped (after stop(), or after an error). */
  readonly done: Promise<void>;
}

export interface AppendOptions {
  /**
   * `deferred`: the append may return before it is on disk. Only for facts that a later durable
   * append of the same writer makes durable too (PostgreSQL flushes its log in order), such as the
   * intermediate steps of a run whose terminal event is durable. Adapters may ignore it.
   */
  durability?: 'durable' | 'deferred';
  /**
   * Runs' data keys (sealed under the master key) to store in the same transaction as the events
   * (sealingEventStore.ts): a run's key and its first events commit together or not at all. Only for
   * an adapter whose `storesDataKeys` is true.
   */
  dataKeys?: readonly { executionId: string; wrappedKey: string }[];
}

export interface ReadStreamOptions {
  /** First revision to read (inclusive); 0 when unset. */
  fromRevision?: number;
  /** At most this many events. */
  maxCount?: number;
  /**
   * What a sealed value that cannot be opened does: `throw` (unset) fails the read with
   * SealedValueUnreadableError; `mark` reads the event's sealed fields as their erased values and
   * names them in `unreadableFields`, for a reader that ends what holds it rather than fail for ever.
   */
  unreadable?: 'throw' | 'mark';
}

export interface EventStore {
  /** `memory`: the deterministic simulation's in-memory log (test/simulation), never a deployment's. */
  readonly kind: 'postgres' | 'kurrentdb' | 'memory';
  /** The adapter stores `AppendOptions.dataKeys` in its append's transaction (PostgreSQL: the log and the keys share a database). */
  readonly storesDataKeys?: boolean;
  append(streamId: string, events: EventToAppend[], expected: ExpectedRevision, options?: AppendOptions): Promise<AppendResult>;
  /** The stream's events in revision order ([] when it does not exist), from a revision and bounded if asked. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Whether the stream has any event, without reading it. */
  streamExists(streamId: string): Promise<boolean>;
  /** Each named stream's last revision and chain hash as the log records them apart from the events (absent: no such stream). */
  streamHeads(streamIds: string[]): Promise<Map<string, { revision: number; hash: string | null }>>;
  /** Events after `from`, in log order, at most `limit`; `unreadable` as for readStream. */
  readAll(from: number, limit: number, options?: Pick<ReadStreamOptions, 'unreadable'>): Promise<RecordedEvent[]>;
  subscribe(options: SubscriptionOptions): Subscription;
  /**
   * Position of the newest committed event (0 when empty). A subscriber may see it a moment later:
   * reads of `$all` stop below the visibility horizon, which appends still in flight hold back.
   */
  headPosition(): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevision extends Error {
  readonly streamId: string;
  readonly expected: ExpectedRevision;
  /** Revision of the stream's last event, or -1 when the stream does not exist. */
  readonly actual: number;

  constructor(streamId: string, expected: ExpectedRevision, actual: number) {
    super(`Wrong expected revision on ${streamId}: expected ${String(expected)}, actual ${actual}`);
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
    this.name = 'WrongExpectedRevision';
  }
}
