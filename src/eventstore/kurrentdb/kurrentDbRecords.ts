import { BACKWARDS, END, FORWARDS, type KurrentDBClient, START, StreamNotFoundError, excludeSystemEvents, type AllStreamResolvedEvent, type Position, type ReadPosition, type ResolvedEvent } from '@kurrent/kurrentdb-client';
import type { EventMetadata } from '../../domain/events/eventMetadata.ts';
import type { RecordedEvent, Subscription, SubscriptionOptions } from '../eventStore.ts';

/** What the adapter keeps in an event's metadata beside the service's own: its schema version, KurrentDB's correlation fields and the hash chain. */
export type StoredMetadata = EventMetadata & { schemaVersion: number; $correlationId: string; $causationId: string | null; contentHash?: string; chainHash?: string };

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

export async function readKurrentDbStream(client: KurrentDBClient, streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
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
}

export async function kurrentDbStreamExists(client: KurrentDBClient, streamId: string): Promise<boolean> {
  try {
    for await (const resolved of client.readStream(streamId, { fromRevision: START, direction: FORWARDS, maxCount: 1 })) if (resolved.event) return true;
  } catch (error) {
    if (error instanceof StreamNotFoundError) return false;
    throw error;
  }
  return false;
}

/** The log's own events after `from`, at most `limit` (system events skipped). */
export async function readKurrentDbLog(client: KurrentDBClient, from: number, limit: number): Promise<RecordedEvent[]> {
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
}

export function subscribeToKurrentDb(client: KurrentDBClient, options: SubscriptionOptions): Subscription {
  const subscription = client.subscribeToAll({ fromPosition: options.from === 'now' ? END : toReadPosition(options.from), filter: excludeSystemEvents() });
  let stopped = false;
  const started = new Promise<void>((resolve) => subscription.once('confirmation', resolve));
  // The server says when the subscription turns live and when it falls behind; while live, every
  // event it has is pushed, so the subscription is current after each event handled and while idle.
  // A handler still at work (or stuck) is behind, whatever the server says.
  let current = false;
  let handling = false;
  const tellCaughtUp = () => {
    if (!current || handling || stopped) return;
    options.onReadStart?.();
    options.onCaughtUp?.();
  };
  subscription.on('caughtUp', () => {
    current = true;
    tellCaughtUp();
  });
  subscription.on('fellBehind', () => (current = false));
  const heartbeat = setInterval(tellCaughtUp, 500);
  heartbeat.unref();
  const done = (async () => {
    for await (const resolved of subscription) {
      if (stopped) break;
      if (isSystem(resolved)) continue;
      handling = true;
      await options.handler([toRecorded(resolved)]);
      handling = false;
      tellCaughtUp();
    }
  })()
    .catch((error: unknown) => {
      if (!stopped) options.onError?.(error);
    })
    .finally(() => clearInterval(heartbeat));
  return {
    done,
    started: Promise.race([started, done]),
    async stop() {
      stopped = true;
      await subscription.unsubscribe();
      await done;
    },
  };
}

export async function kurrentDbHeadPosition(client: KurrentDBClient): Promise<number> {
  for await (const resolved of client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 100 })) {
    if (!isSystem(resolved)) return Number(resolved.event!.position.commit);
  }
  return 0;
}
