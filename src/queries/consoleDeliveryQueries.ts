import { type Kysely, sql } from 'kysely';
import type { DeliveryStatus } from '../domain/webhooks/deliveryEvents.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { deliveryRow } from './deliveryQueries.ts';
import { decodeCursor, encodeCursor, exactInstant } from './keysetCursor.ts';

const CURSOR_PREFIX = 'cd1.';

/**
 * Deliveries across organizations for operators: dead letters first, then newest first, filtered by
 * organization, run and status, paged by a keyset over (dead letter, created_at, id) so that a page
 * boundary never skips or repeats a delivery.
 */
export async function listDeliveriesForOperators(db: Kysely<ReadModels>, input: { organizationId?: string; executionId?: string; statuses?: DeliveryStatus[]; limit: number; cursor?: string }) {
  const dead = sql<number>`(status = 'dead_letter')::int`;
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .select([dead.as('dead'), exactInstant('created_at').as('created_at_exact')]);
  if (input.organizationId) query = query.where('organization_id', '=', input.organizationId);
  if (input.executionId) query = query.where('execution_id', '=', input.executionId);
  if (input.statuses?.length) query = query.where('status', 'in', input.statuses);
  if (input.cursor) {
    const [isDead, createdAt, id] = decodeCursor(CURSOR_PREFIX, input.cursor, (key): key is [number, string, string] => (key[0] === 0 || key[0] === 1) && typeof key[1] === 'string' && typeof key[2] === 'string');
    query = query.where(sql<boolean>`(${dead}, created_at, id) < (${isDead}, ${createdAt}::timestamptz, ${id})`);
  }
  const rows = await query.orderBy(dead, 'desc').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(input.limit).execute();
  const last = rows.at(-1);
  return {
    items: rows.map((r) => ({ deliveryId: r.id, organizationId: r.organization_id, ...deliveryRow(r) })),
    nextCursor: rows.length === input.limit && last ? encodeCursor(CURSOR_PREFIX, [Number(last.dead), last.created_at_exact, last.id]) : null,
  };
}
