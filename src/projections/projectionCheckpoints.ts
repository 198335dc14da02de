import type { Kysely } from 'kysely';
import type { Projection } from './projection.ts';
import type { ReadModels } from './readModelSchema.ts';

export interface ProjectionStatus {
  name: string;
  position: number;
  /** How many log positions the projection is behind the head. */
  behind: number;
  /** Where and why it waits, while it cannot apply an event (the other projections go on). */
  stalled: { position: number; eventType: string; error: string; since: string } | null;
}

/** Each projection's checkpoint (its position in the log, and its stall if any), in `projection_checkpoints`. */
export function createCheckpoints(db: Kysely<ReadModels>, projections: readonly Projection[]) {
  const names = projections.map((p) => p.name);
  return {
    /** A checkpoint at 0 for every projection that has none yet. */
    async ensure() {
      await db.insertInto('projection_checkpoints').values(names.map((name) => ({ name, position: 0 }))).onConflict((oc) => oc.column('name').doNothing()).execute();
    },
    /** The lowest checkpoint; `settledOnly` leaves out projections stalled on an event. */
    async minimum(settledOnly = false): Promise<number> {
      let query = db.selectFrom('projection_checkpoints').select((eb) => eb.fn.min('position').as('position')).where('name', 'in', names);
      if (settledOnly) query = query.where('stalled_at_position', 'is', null);
      const row = await query.executeTakeFirst();
      return Number(row?.position ?? 0);
    },
    /** Where each projection stands against the log's `head`. */
    async status(head: number): Promise<ProjectionStatus[]> {
      const rows = await db.selectFrom('projection_checkpoints').selectAll().where('name', 'in', names).execute();
      const stored = new Map(rows.map((r) => [r.name, r]));
      return projections.map((p) => {
        const row = stored.get(p.name);
        const position = Number(row?.position ?? 0);
        const stalled =
          row?.stalled_at_position != null
            ? { position: Number(row.stalled_at_position), eventType: row.stalled_event_type ?? '?', error: row.stalled_error ?? '', since: row.stalled_since?.toISOString() ?? '' }
            : null;
        return { name: p.name, position, behind: Math.max(0, head - position), stalled };
      });
    },
  };
}
