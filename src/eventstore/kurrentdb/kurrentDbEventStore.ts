import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendStreamState,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import type { EventMetadata } from '../../domain/events/eventMetadata.ts';
import { GENESIS_HASH, chainHash, contentHash } from '../../domain/audit/eventHash.ts';
import { type EventStore, type EventToAppend, type ExpectedRevision, type RecordedEvent, WrongExpectedRevision } from '../eventStore.ts';

/**
 * KurrentDB adapter. Positions are the commit positions of `$all` (KurrentDB assigns every event its
 * own commit position, equal to its prepare position). Appends are idempotent by event id on the
 * server. The expected state is passed as `streamState`: the client's older `expectedRevision`
 * option is silently ignored by @kurrent/kurrentdb-client.
 */
type StoredMetadata = EventMetadata & { schemaVersion: number; $correlationId: string; $causationId: string | null; contentHash?: string; chainHash?: string };

/** Appends whose chain start moved under them (another writer) are chained again on fresh state this often. */
const MAX_CHAIN_RETRIES = 5;

const toStreamState = (expected: ExpectedRevision): AppendStreamState =>
  expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : expected === 'stream_exists' ? STREAM_EXISTS : BigInt(expected);

const toReadPosition = (position: number): ReadPosition =>
  position <= 0 ? START : { commit: BigInt(position), prepare: BigInt(position) };

const isSystem = (resolved: ResolvedEvent | AllStreamResolvedEvent) =>
  !resolved.event || resolved.event.type.startsWith('$') || resolved.event.streamId.startsWith('$');

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent {
  const event = resolved.event!;
  const { schemaVersion, $correlationId: _c, $causationId: _k, contentHash: _h, chainHash, ...metadata } = event.metadata as StoredMetadata;
  const position = (event.position as Position | undefined)?.commit ?? resolved.commitPosition ?? 0n;
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    position: Number(position),
    type: event.type,
    schemaVersion,
    data: event.data,
    metadata,
    recordedAt: event.created,
    hash: chainHash ?? null,
  };
}

export function createKurrentDbEventStore(connectionString: string): EventStore {
  const client = KurrentDBClient.connectionString(connectionString);

  /** The stream's last event (revision and chain hash), or null when it has none. */
  async function lastOf(streamId: string): Promise<{ revision: number; hash: string | null } | null> {
    try {
      for await (const resolved of client.readStream(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 })) {
        if (resolved.event) return { revision: Number(resolved.event.revision), hash: (resolved.event.metadata as StoredMetadata).chainHash ?? null };
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return null;
  }

  /**
   * One append with its hash chain in the events' metadata. KurrentDB cannot compute it on the
   * server, so the chain's start is read first (one more round trip than PostgreSQL), and the
   * append then expects exactly that revision: if another writer got in between, it conflicts and
   * is chained again on fresh state (for `any`/`stream_exists`) or reported (for a revision).
   */
  async function appendChained(streamId: string, events: EventToAppend[], expected: ExpectedRevision) {
    const last = expected === 'no_stream' ? null : await lastOf(streamId);
    let head = last?.hash ?? GENESIS_HASH;
    const firstRevision = (last?.revision ?? -1) + 1;
    const chained = events.map((e, i) => {
      const content = contentHash({ streamId, id: e.id, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata });
      head = chainHash(head, firstRevision + i, content);
      return jsonEvent({
        id: e.id,
        type: e.type,
        data: e.data as Record<string, unknown>,
        metadata: { ...e.metadata, schemaVersion: e.schemaVersion, $correlationId: e.metadata.correlationId, $causationId: e.metadata.causationId, contentHash: content, chainHash: head },
      });
    });
    const pinned: ExpectedRevision = typeof expected === 'number' || expected === 'no_stream' ? expected : last ? last.revision : expected === 'any' ? 'no_stream' : expected;
    return client.appendToStream(streamId, chained, { streamState: toStreamState(pinned) });
  }

  return {
    kind: 'kurrentdb',

    async append(streamId, events, expected) {
      for (let attempt = 0; ; attempt++) {
        try {
          const result = await appendChained(streamId, events, expected);
          return { nextExpectedRevision: Number(result.nextExpectedRevision), position: Number(result.position?.commit ?? 0n) };
        } catch (error) {
          if (!(error instanceof WrongExpectedVersionError)) throw error;
          const pinnedByUs = expected === 'any' || expected === 'stream_exists';
          if (pinnedByUs && attempt < MAX_CHAIN_RETRIES) continue;
          const actual = typeof error.actualState === 'bigint' ? Number(error.actualState) : -1;
          throw new WrongExpectedRevision(streamId, expected, actual);
        }
      }
    },

    async streamHeads(streamIds) {
      const heads = new Map<string, { revision: number; hash: string | null }>();
      for (const streamId of streamIds) {
        const last = await lastOf(streamId);
        if (last) heads.set(streamId, last);
      }
      return heads;
    },

    async readStream(streamId, options = {}) {
      const out: RecordedEvent[] = [];
      if (options.maxCount === 0) return out;
      try {
        const fromRevision = options.fromRevision ? BigInt(options.fromRevision) : START;
        for await (const resolved of client.readStream(streamId, { fromRevision, direction: FORWARDS, ...(options.maxCount ? { maxCount: options.maxCount } : {}) })) {
          if (resolved.event) out.push(toRecorded(resolved));
        }
      } catch (error) {
        if (error instanceof StreamNotFoundError) return [];
        throw error;
      }
      return out;
    },

    async streamExists(streamId) {
      try {
        for await (const resolved of client.readStream(streamId, { fromRevision: START, direction: FORWARDS, maxCount: 1 })) if (resolved.event) return true;
      } catch (error) {
        if (error instanceof StreamNotFoundError) return false;
        throw error;
      }
      return false;
    },

    async readAll(from, limit) {
      const out: RecordedEvent[] = [];
      let cursor = from;
      // System events count against maxCount; page until `limit` own events or the end.
      for (;;) {
        let seen = 0;
        for await (const resolved of client.readAll({ fromPosition: toReadPosition(cursor), direction: FORWARDS, maxCount: limit + 1 })) {
          seen++;
          const position = Number(resolved.event?.position.commit ?? resolved.commitPosition ?? 0n);
          if (position <= cursor) continue;
          cursor = position;
          if (!isSystem(resolved)) out.push(toRecorded(resolved));
          if (out.length >= limit) return out;
        }
        if (seen < limit + 1) return out; // a short page is the end of the log
      }
    },

    subscribe(options) {
      const subscription = client.subscribeToAll({ fromPosition: options.from === 'now' ? END : toReadPosition(options.from), filter: excludeSystemEvents() });
      let stopped = false;
      const started = new Promise<void>((resolve) => subscription.once('confirmation', resolve));
      const done = (async () => {
        for await (const resolved of subscription) {
          if (stopped) break;
          if (isSystem(resolved)) continue;
          await options.handler([toRecorded(resolved)]);
        }
      })().catch((error: unknown) => {
        if (!stopped) options.onError?.(error);
      });
      return {
        done,
        started: Promise.race([started, done]),
        async stop() {
          stopped = true;
          await subscription.unsubscribe();
          await done;
        },
      };
    },

    async headPosition() {
      for await (const resolved of client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 100 })) {
        if (!isSystem(resolved)) return Number(resolved.event!.position.commit);
      }
      return 0;
    },

    async ping() {
      for await (const _ of client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 })) break;
    },

    close: () => client.dispose(),
  };
}
