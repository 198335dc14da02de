import { EventEmitter } from 'node:events';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors/apiError.ts';
import { type DomainEvent, decodeEvent } from '../domain/events/domainEvent.ts';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/eventStore.ts';
import type { Projection } from './projection.ts';
import type { ReadModels } from './readModelSchema.ts';

/** A stored checkpoint is behind where this runner read from: a rebuild reset it. */
class CheckpointMoved extends Error {
  constructor(readonly stored: number) {
    super(`checkpoint moved to ${stored}`);
  }
}

export interface ProjectionStatus {
  name: string;
  position: number;
  /** How many log positions the projection is behind the head. */
  behind: number;
}

export interface ProjectionRunnerOptions {
  db: Kysely<ReadModels>;
  eventStore: EventStore;
  projections: readonly Projection[];
  logger: Logger;
  batchSize?: number;
}

export function createProjectionRunner(options: ProjectionRunnerOptions) {
  const { db, eventStore, projections, logger } = options;
  const batchSize = options.batchSize ?? 500;
  const advanced = new EventEmitter();
  advanced.setMaxListeners(0);
  let subscription: Subscription | undefined;
  let running = false;

  async function ensureCheckpoints() {
    await db
      .insertInto('projection_checkpoints')
      .values(projections.map((p) => ({ name: p.name, position: 0 })))
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }


  /**
   * Applies one batch to every projection in one transaction, each from its own checkpoint, and moves
   * the checkpoints with it. `from` is where the reader stood before this batch: a projection whose
   * checkpoint is behind it (a rebuild reset it) would miss events, so the reader must go back.
   */
  async function applyBatch(from: number, events: RecordedEvent[]): Promise<number> {
    const last = events.at(-1)!.position;
    await db.transaction().execute(async (trx) => {
      // Read models are derived: if a crash loses this commit, it loses the checkpoints with it and the
      // batch is replayed. So the commit need not wait for the disk (the log's appends always do).
      await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      const rows = await trx
        .selectFrom('projection_checkpoints')
        .select(['name', 'position'])
        .where('name', 'in', projections.map((p) => p.name))
        .orderBy('name')
        .forUpdate()
        .execute();
      const stored = new Map(rows.map((r) => [r.name, Number(r.position)]));
      const behind = Math.min(...projections.map((p) => stored.get(p.name) ?? 0));
      if (behind < from) throw new CheckpointMoved(behind);

      const decoded = new Map<string, DomainEvent>();
      for (const projection of projections) {
        const checkpoint = stored.get(projection.name) ?? 0;
        if (checkpoint >= last) continue; // another runner got here first
        for (const recorded of events) {
          if (recorded.position <= checkpoint || !(projection.handles as readonly string[]).includes(recorded.type)) continue;
          let event = decoded.get(recorded.id);
          if (!event) decoded.set(recorded.id, (event = decodeEvent(recorded.type, recorded.schemaVersion, recorded.data)));
          await projection.apply(trx, event, { recorded, occurredAt: recorded.metadata.occurredAt });
        }
      }
      await trx
        .updateTable('projection_checkpoints')
        .set({ position: last, updated_at: sql<Date>`now()` })
        .where('name', 'in', projections.map((p) => p.name))
        .where('position', '<', String(last))
        .execute();
    });
    advanced.emit('advanced');
    return last;
  }

  function startSubscription(from: number) {
    let cursor = from;
    subscription = eventStore.subscribe({
      from,
      batchSize,
      handler: async (events) => {
        cursor = await applyBatch(cursor, events);
      },
      onError: (error) => {
        if (!running) return;
        if (!(error instanceof CheckpointMoved)) logger.error({ err: error }, 'projections failed; retrying');
        setTimeout(() => void restart(), error instanceof CheckpointMoved ? 10 : 1000).unref();
      },
    });
  }

  async function restart() {
    if (!running) return;
    try {
      startSubscription(await minimumPosition());
    } catch (error) {
      logger.error({ err: error }, 'could not restart projections; retrying');
      setTimeout(() => void restart(), 1000).unref();
    }
  }

  /**
   * Brings every projection up to `head` in this process (the CLI's and tests' way to catch up).
   * Committed events below `head` may still sit above the visibility horizon while some other
   * transaction is open; that is waited out, for at most `timeoutMs`.
   */
  async function catchUpTo(head: number, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    let cursor = await minimumPosition();
    while (cursor < head) {
      const events = await eventStore.readAll(cursor, batchSize);
      if (events.length === 0) {
        if (Date.now() > deadline) {
          throw new ApiError('PROJECTION_TIMEOUT', `Read models stayed at log position ${cursor} for ${timeoutMs} ms: a long transaction holds the log's visibility horizon back`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      try {
        cursor = await applyBatch(cursor, events);
      } catch (error) {
        if (!(error instanceof CheckpointMoved)) throw error;
        cursor = error.stored;
      }
    }
  }

  async function minimumPosition(): Promise<number> {
    const row = await db
      .selectFrom('projection_checkpoints')
      .select((eb) => eb.fn.min('position').as('position'))
      .where('name', 'in', projections.map((p) => p.name))
      .executeTakeFirst();
    return Number(row?.position ?? 0);
  }

  return {
    async start() {
      await ensureCheckpoints();
      running = true;
      startSubscription(await minimumPosition());
    },

    async stop() {
      running = false;
      await subscription?.stop();
      subscription = undefined;
    },

    /** Brings every projection up to the log's current head. */
    async catchUp() {
      await ensureCheckpoints();
      await catchUpTo(await eventStore.headPosition());
    },

    /** Empties every read model, resets the checkpoints, and replays the whole log. */
    async rebuild() {
      await ensureCheckpoints();
      await db.transaction().execute(async (trx) => {
        // Lock the checkpoints first so no runner commits a batch between the truncate and the reset.
        await trx.selectFrom('projection_checkpoints').selectAll().orderBy('name').forUpdate().execute();
        const tables = projections.flatMap((p) => p.tables);
        await sql`TRUNCATE ${sql.join(tables.map((t) => sql.table(t)))}`.execute(trx);
        await trx.updateTable('projection_checkpoints').set({ position: 0, updated_at: sql<Date>`now()` }).execute();
      });
      await catchUpTo(await eventStore.headPosition());
    },

    /** Read-your-writes: resolves once every projection has passed `position`, or fails after `timeoutMs`. */
    async waitForPosition(position: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if ((await minimumPosition()) >= position) return;
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          throw new ApiError('PROJECTION_TIMEOUT', `Read models did not reach log position ${position} within ${timeoutMs} ms`);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(remaining, 25));
          function done() {
            clearTimeout(timer);
            advanced.off('advanced', done);
            resolve();
          }
          advanced.once('advanced', done);
        });
      }
    },

    async status(): Promise<ProjectionStatus[]> {
      const head = await eventStore.headPosition();
      const rows = await db.selectFrom('projection_checkpoints').select(['name', 'position']).execute();
      const stored = new Map(rows.map((r) => [r.name, Number(r.position)]));
      return projections.map((p) => {
        const position = stored.get(p.name) ?? 0;
        return { name: p.name, position, behind: Math.max(0, head - position) };
      });
    },
  };
}

export type ProjectionRunner = ReturnType<typeof createProjectionRunner>;
