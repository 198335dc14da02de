import { EventEmitter } from 'node:events';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors/apiError.ts';
import { decodeEvent } from '../domain/events/domainEvent.ts';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/eventStore.ts';
import type { Projection } from './projection.ts';
import type { ReadModels } from './readModelSchema.ts';

/** The stored checkpoint is not where this runner thought: another process moved it, or a rebuild reset it. */
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
  const subscriptions = new Map<string, Subscription>();
  let running = false;

  async function ensureCheckpoints() {
    await db
      .insertInto('projection_checkpoints')
      .values(projections.map((p) => ({ name: p.name, position: 0 })))
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }

  async function storedPosition(name: string): Promise<number> {
    const row = await db.selectFrom('projection_checkpoints').select('position').where('name', '=', name).executeTakeFirst();
    return Number(row?.position ?? 0);
  }

  /** Applies one batch and moves the checkpoint in the same transaction; refuses if the checkpoint is not at `from`. */
  async function applyBatch(projection: Projection, from: number, events: RecordedEvent[]): Promise<number> {
    const last = events.at(-1)!.position;
    await db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('projection_checkpoints')
        .select('position')
        .where('name', '=', projection.name)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const stored = Number(row.position);
      if (stored !== from) throw new CheckpointMoved(stored);
      for (const recorded of events) {
        if (!(projection.handles as readonly string[]).includes(recorded.type)) continue;
        const event = decodeEvent(recorded.type, recorded.schemaVersion, recorded.data);
        await projection.apply(trx, event, { recorded, occurredAt: recorded.metadata.occurredAt });
      }
      await trx
        .updateTable('projection_checkpoints')
        .set({ position: last, updated_at: sql<Date>`now()` })
        .where('name', '=', projection.name)
        .execute();
    });
    advanced.emit('advanced');
    return last;
  }

  function startSubscription(projection: Projection, from: number) {
    let cursor = from;
    const subscription = eventStore.subscribe({
      from,
      batchSize,
      handler: async (events) => {
        cursor = await applyBatch(projection, cursor, events);
      },
      onError: (error) => {
        if (!running) return;
        if (!(error instanceof CheckpointMoved)) logger.error({ err: error, projection: projection.name }, 'projection failed; retrying');
        const delay = error instanceof CheckpointMoved ? 10 : 1000;
        setTimeout(() => void restart(projection), delay).unref();
      },
    });
    subscriptions.set(projection.name, subscription);
  }

  async function restart(projection: Projection) {
    if (!running) return;
    try {
      startSubscription(projection, await storedPosition(projection.name));
    } catch (error) {
      logger.error({ err: error, projection: projection.name }, 'could not restart projection; retrying');
      setTimeout(() => void restart(projection), 1000).unref();
    }
  }

  /** Processes one projection up to `head` in this process (the CLI's and tests' way to catch up). */
  async function catchUpOne(projection: Projection, head: number) {
    let cursor = await storedPosition(projection.name);
    while (cursor < head) {
      const events = await eventStore.readAll(cursor, batchSize);
      if (events.length === 0) break;
      try {
        cursor = await applyBatch(projection, cursor, events);
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
      for (const projection of projections) startSubscription(projection, await storedPosition(projection.name));
    },

    async stop() {
      running = false;
      await Promise.all([...subscriptions.values()].map((s) => s.stop()));
      subscriptions.clear();
    },

    /** Brings every projection up to the log's current head. */
    async catchUp() {
      await ensureCheckpoints();
      const head = await eventStore.headPosition();
      for (const projection of projections) await catchUpOne(projection, head);
    },

    /** Empties every read model, resets the checkpoints, and replays the whole log. */
    async rebuild() {
      await ensureCheckpoints();
      await db.transaction().execute(async (trx) => {
        // Lock the checkpoints first so no runner commits a batch between the truncate and the reset.
        await trx.selectFrom('projection_checkpoints').selectAll().forUpdate().execute();
        const tables = projections.flatMap((p) => p.tables);
        await sql`TRUNCATE ${sql.join(tables.map((t) => sql.table(t)))}`.execute(trx);
        await trx.updateTable('projection_checkpoints').set({ position: 0, updated_at: sql<Date>`now()` }).execute();
      });
      const head = await eventStore.headPosition();
      for (const projection of projections) await catchUpOne(projection, head);
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
