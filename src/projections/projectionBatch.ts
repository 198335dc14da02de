import { RETRY_POLICIES, retryDelayMs } from '../domain/retry/retryPolicy.ts';
import { storableExcerpt } from '../domain/text/storableText.ts';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { DomainEvent } from '../domain/domainEvent.ts';
import { PREPARED } from '../database/preparedStatements.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { OpenInBatch, RecordedEvent } from '../eventstore/eventStore.ts';
import type { Projection, ProjectionContext } from './projection.ts';
import type { ReadModels } from './readModelSchema.ts';

/**
 * The event opened for a projection that declared it opens its type; without `open` (a rebuild reads
 * the log opened already) it is decoded as it came.
 */
async function openFor(projection: Projection, recorded: RecordedEvent, open: OpenInBatch | undefined): Promise<DomainEvent> {
  if (!(projection.opens as readonly string[] | undefined)?.includes(recorded.type)) throw new Error(`projection ${projection.name} opens ${recorded.type} without saying so in its opens`);
  return decodeRecorded(open ? (await open([recorded]))[0]! : recorded);
}

/** A stored checkpoint is behind where the reader read from: a rebuild reset it, or a stalled projection is due for a retry. */
export class CheckpointMoved extends Error {
  readonly stored: number;

  constructor(stored: number) {
    super(`checkpoint moved to ${stored}`);
    this.stored = stored;
  }
}

export interface Stall {
  position: number;
  eventType: string;
  error: string;
  /** Consecutive failures, for the retry backoff. */
  failures: number;
  /** Not retried before this time (ms since the epoch). */
  retryAt: number;
}

/** The unguarded try of a batch failed in some projection: the batch is applied again, guarded. */
class UnguardedFailed extends Error {}

/**
 * Applies one batch to every projection in one transaction, each from its own checkpoint. First
 * unguarded: every projection straight in the transaction (a batch that fails anywhere is rolled back
 * whole, as if never tried). Then, only if that failed, guarded: each projection inside a savepoint
 * of its own, so a projection that cannot apply an event is rolled back alone, marked as stalled (in
 * memory for its retry time, and in its checkpoint row for every process and /health), and the others
 * move on. Failures are rare, and the savepoints cost two round trips per projection per batch.
 * `from` is where the reader stood before this batch: an active projection whose checkpoint is
 * behind it would miss events, so the reader must go back (CheckpointMoved). Returns the batch's
 * last position.
 */
type BatchArguments = [db: Kysely<ReadModels>, projections: readonly Projection[], stalls: Map<string, Stall>, logger: Logger, from: number, events: RecordedEvent[], now: number, open?: OpenInBatch];

export async function applyBatch(...args: BatchArguments): Promise<number> {
  try {
    return await applyBatchOnce(args, false);
  } catch (error) {
    if (!(error instanceof UnguardedFailed)) throw error;
    return applyBatchOnce(args, true);
  }
}

async function applyBatchOnce([db, projections, stalls, logger, from, events, now, open]: BatchArguments, guarded: boolean): Promise<number> {
  const last = events.at(-1)!.position;
  const held = (name: string) => (stalls.get(name)?.retryAt ?? 0) > now;
  const active = projections.filter((p) => !held(p.name));
  const settled: { advanced: string[]; stalled: Map<string, Stall> } = { advanced: [], stalled: new Map() };
  await db.transaction().execute(async (trx) => {
    // Read models are derived: if a crash loses this commit, it loses the checkpoints with it and the
    // batch is replayed. So the commit need not wait for the disk (the log's appends always do): set in
    // the statement that locks the checkpoints, one round trip less per batch than a SET LOCAL of its own.
    // It and the checkpoints' move are PREPARED: one text each per projection group, sent every batch.
    const { rows } = await sql<{ name: string; position: string }>`
      SELECT c.name, c.position FROM set_config('synchronous_commit', 'off', true) AS s, projection_checkpoints AS c
      WHERE c.name IN (${sql.join(projections.map((p) => p.name))}) ORDER BY c.name FOR UPDATE OF c ${sql.raw(PREPARED)}`.execute(trx);
    const stored = new Map(rows.map((r) => [r.name, Number(r.position)]));
    const behind = Math.min(...active.map((p) => stored.get(p.name) ?? 0));
    if (active.length > 0 && behind < from) throw new CheckpointMoved(behind);

    const decoded = new Map<string, DomainEvent>();
    for (const projection of active) {
      const checkpoint = stored.get(projection.name) ?? 0;
      if (checkpoint >= last) continue; // another runner got here first
      const handles = projection.handles as readonly string[];
      const mine = events.filter((recorded) => recorded.position > checkpoint && handles.includes(recorded.type));
      if (mine.length === 0) {
        // Nothing here for it: its checkpoint moves without a savepoint (two round trips saved).
        settled.advanced.push(projection.name);
        continue;
      }
      let current: RecordedEvent | undefined;
      const decode = (recorded: RecordedEvent) => {
        let event = decoded.get(recorded.id);
        if (!event) decoded.set(recorded.id, (event = decodeRecorded(recorded)));
        return event;
      };
      const context = (recorded: RecordedEvent): ProjectionContext => ({ recorded, occurredAt: recorded.metadata.occurredAt, open: () => openFor(projection, recorded, open) });
      const applyAll = (all: NonNullable<Projection['applyAll']>) => all(trx, mine.map((recorded) => ({ event: decode(recorded), context: context(recorded) })));
      const applyEach = async () => {
        for (const recorded of mine) {
          current = recorded;
          await projection.apply(trx, decode(recorded), context(recorded));
        }
      };
      if (!guarded) {
        try {
          await (projection.applyAll ? applyAll(projection.applyAll) : applyEach());
        } catch {
          throw new UnguardedFailed(projection.name);
        }
        settled.advanced.push(projection.name);
        continue;
      }
      await sql`SAVEPOINT projection`.execute(trx);
      try {
        if (projection.applyAll) {
          try {
            await applyAll(projection.applyAll);
          } catch {
            // Which event? Event by event from the savepoint: the one that fails stalls the projection as usual.
            await sql`ROLLBACK TO SAVEPOINT projection`.execute(trx);
            await applyEach();
          }
        } else await applyEach();
        await sql`RELEASE SAVEPOINT projection`.execute(trx);
        settled.advanced.push(projection.name);
      } catch (error) {
        await sql`ROLLBACK TO SAVEPOINT projection`.execute(trx);
        const failures = (stalls.get(projection.name)?.failures ?? 0) + 1;
        // The error's text goes into a row: made storable (a NUL in it would fail this write too).
        const stall = { position: current?.position ?? checkpoint + 1, eventType: current?.type ?? '?', error: storableExcerpt((error as Error).message, 2000), failures, retryAt: now + retryDelayMs(RETRY_POLICIES.projectionStall, failures, 0) };
        settled.stalled.set(projection.name, stall);
        logger.error({ err: error, projection: projection.name, position: stall.position, eventType: stall.eventType }, 'projection stalled on an event; the others go on');
        await trx
          .updateTable('projection_checkpoints')
          .set({ stalled_at_position: stall.position, stalled_event_type: stall.eventType, stalled_error: stall.error, stalled_since: sql<Date>`coalesce(stalled_since, now())` })
          .where('name', '=', projection.name)
          .execute();
      }
    }
    if (settled.advanced.length > 0) {
      await trx
        .updateTable('projection_checkpoints')
        .set({ position: last, updated_at: sql<Date>`now()`, stalled_at_position: null, stalled_event_type: null, stalled_error: null, stalled_since: null })
        .where('name', 'in', settled.advanced)
        .where('position', '<', String(last))
        .modifyEnd(sql.raw(PREPARED))
        .execute();
    }
  });
  for (const name of settled.advanced) stalls.delete(name);
  for (const [name, stall] of settled.stalled) stalls.set(name, stall);
  return last;
}
