import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { EventStore, UnreadableEvent } from '../eventstore/eventStore.ts';
import type { Projection } from './projection.ts';
import { type TableComparison, compareWithShadow } from './readModelComparison.ts';
import { type ReadModels, readModelTables } from './readModelSchema.ts';
import { createShadowReadModels, swapInShadow } from './shadowReadModels.ts';

export interface ReadModelDeps {
  db: Kysely<ReadModels>;
  eventStore: EventStore;
  projections: readonly Projection[];
  logger: Logger;
  databaseUrl: string;
}

/** How many times a verify follows live read models that keep moving before it gives up. */
const MAX_ROUNDS = 50;

/**
 * Rebuilds every read model from the log into a shadow schema while the service keeps serving,
 * up to the live checkpoint, and compares table by table (row counts, a hash per table, and the
 * rows found in one and not the other). Live read models that move meanwhile are followed: the
 * shadow catches up to where they stand and the comparison is made again in one snapshot.
 */
export async function verifyReadModels(deps: ReadModelDeps): Promise<{ ok: boolean; at: number; tables: TableComparison[]; unreadable: { count: number; events: UnreadableEvent[] } }> {
  const shadow = await createShadowReadModels({ connectionString: deps.databaseUrl, eventStore: deps.eventStore, projections: deps.projections, logger: deps.logger });
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const checkpoints = await deps.db.selectFrom('projection_checkpoints').select('position').execute();
      await shadow.catchUpTo(Math.min(...checkpoints.map((c) => Number(c.position))));
      const result = await compareWithShadow(deps.db, shadow.schema, readModelTables, async (at) => at === shadow.position());
      if (result.ready) return { ok: result.tables.every((t) => t.liveHash === t.shadowHash), at: result.at, tables: result.tables, unreadable: shadow.unreadable() };
    }
    throw new Error(`the live read models did not hold still long enough to compare (${MAX_ROUNDS} rounds): a projection may be stalled (see /health)`);
  } finally {
    await shadow.drop();
  }
}

/** Rebuilds every read model into a shadow, then swaps it in: the API never serves empty read models. */
export async function rebuildReadModels(deps: ReadModelDeps): Promise<{ position: number }> {
  const shadow = await createShadowReadModels({ connectionString: deps.databaseUrl, eventStore: deps.eventStore, projections: deps.projections, logger: deps.logger });
  try {
    await shadow.catchUpTo(await deps.eventStore.headPosition());
    await swapInShadow(deps.db, shadow, deps.eventStore, readModelTables);
    return { position: shadow.position() };
  } finally {
    await shadow.drop();
  }
}
