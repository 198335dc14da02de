import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { type EventStore, type UnreadableEvent, unreadableEventOf } from '../eventstore/eventStore.ts';
import { migrateReadModels } from './migrateReadModels.ts';
import type { Projection } from './projection.ts';
import { applyBatch } from './projectionBatch.ts';
import type { ReadModels } from './readModelSchema.ts';

const BATCH = 500;

export interface ShadowReadModels {
  schema: string;
  db: Kysely<ReadModels>;
  /** The log position the shadow has been built up to. */
  position(): number;
  /** Applies the log's events after the shadow's position, up to `target` and not one beyond. */
  catchUpTo(target: number): Promise<void>;
  /**
   * The events applied so far that hold a sealed value that does not open (applied with it read as
   * erased): a finding of `projections verify`, not an abort of the rebuild. The first 1,000.
   */
  unreadable(): { count: number; events: UnreadableEvent[] };
  drop(): Promise<void>;
}

/**
 * A second copy of every read model in a schema of its own (`seqflow_shadow_<random>`), built from
 * the log by the same projections while the live ones keep serving: what `projections verify`
 * compares the live rows with, and what `projections rebuild` swaps in. Its own connections use
 * the shadow schema as their search path, so the projections and migrations run unchanged.
 */
export async function createShadowReadModels(input: { connectionString: string; eventStore: EventStore; projections: readonly Projection[]; logger: Logger }): Promise<ShadowReadModels> {
  const schema = `seqflow_shadow_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: input.connectionString });
  // A connection lost between statements must not end the process: the next statement fails instead.
  admin.on('error', (error) => input.logger.warn({ err: error }, 'shadow read models: connection lost'));
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: input.connectionString, max: 2, options: `-c search_path=${schema}` });
  pool.on('error', () => undefined);
  const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
  await migrateReadModels(db, schema);
  const names = input.projections.map((p) => p.name);
  await db.insertInto('projection_checkpoints').values(names.map((name) => ({ name, position: 0 }))).execute();
  let position = 0;
  const unreadable = { count: 0, events: [] as UnreadableEvent[] };
  return {
    schema,
    db,
    position: () => position,
    unreadable: () => unreadable,
    async catchUpTo(target) {
      while (position < target) {
        const page = (await input.eventStore.readAll(position, BATCH, { unreadable: 'mark' })).filter((e) => e.position <= target);
        if (page.length === 0) break;
        for (const event of page) {
          const found = unreadableEventOf(event);
          if (found === null) continue;
          unreadable.count++;
          if (unreadable.events.length < 1000) unreadable.events.push(found);
        }
        // Stalls start empty: an event a projection cannot apply stalls it here as it would live.
        position = await applyBatch(db, input.projections, new Map(), input.logger, position, page, Date.now());
      }
    },
    async drop() {
      await db.destroy();
      const client = new pg.Client({ connectionString: input.connectionString });
      client.on('error', (error) => input.logger.warn({ err: error }, 'shadow read models: connection lost'));
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

/**
 * Puts a shadow's tables in place of the live ones in one transaction, with the live checkpoints
 * locked (no batch commits meanwhile) and moved to where the shadow stands: readers see the old
 * rows or the new, never empty tables. The shadow is first brought up to the live head.
 */
export async function swapInShadow(live: Kysely<ReadModels>, shadow: ShadowReadModels, eventStore: EventStore, tables: readonly string[]) {
  await live.transaction().execute(async (trx) => {
    await trx.selectFrom('projection_checkpoints').selectAll().orderBy('name').forUpdate().execute();
    await shadow.catchUpTo(await eventStore.headPosition());
    const liveSchema = (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(trx)).rows[0]!.schema;
    for (const table of tables) {
      await sql`DROP TABLE ${sql.id(liveSchema, table)}`.execute(trx);
      await sql`ALTER TABLE ${sql.id(shadow.schema, table)} SET SCHEMA ${sql.id(liveSchema)}`.execute(trx);
    }
    await trx
      .updateTable('projection_checkpoints')
      .set({ position: shadow.position(), updated_at: sql<Date>`now()`, stalled_at_position: null, stalled_event_type: null, stalled_error: null, stalled_since: null })
      .execute();
  });
}
