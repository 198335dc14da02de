import { type Kysely, sql } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import type { DeliveryStatus } from '../domain/webhooks/deliveryEvents.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

const CURSOR_PREFIX = 'cd1.';

/**
 * Deliveries across organizations for operators: dead letters first, then newest first, filtered by
 * organization and status, paged by a keyset over (dead letter, created_at, id) so that a page
 * boundary never skips or repeats a delivery.
 */
export async function listDeliveriesForOperators(db: Kysely<ReadModels>, input: { organizationId?: string; statuses?: DeliveryStatus[]; limit: number; cursor?: string }) {
  const dead = sql<number>`(status = 'dead_letter')::int`;
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .select([dead.as('dead'), sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('created_at_exact')]);
  if (input.organizationId) query = query.where('organization_id', '=', input.organizationId);
  if (input.statuses?.length) query = query.where('status', 'in', input.statuses);
  if (input.cursor) {
    const [isDead, createdAt, id] = decodeCursor(input.cursor);
    query = query.where(sql<boolean>`(${dead}, created_at, id) < (${isDead}, ${createdAt}::timestamptz, ${id})`);
  }
  const rows = await query.orderBy(dead, 'desc').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(input.limit).execute();
  const last = rows.at(-1);
  return {
    items: rows.map((r) => ({
      deliveryId: r.id,
      organizationId: r.organization_id,
      executionId: r.execution_id,
      event: r.event,
      status: r.status,
      attempts: r.attempts,
      responseStatus: r.response_status,
      errorExcerpt: r.error_excerpt,
      createdAt: r.created_at.toISOString(),
      nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
    })),
    nextCursor: rows.length === input.limit && last ? `${CURSOR_PREFIX}${Buffer.from(JSON.stringify([Number(last.dead), last.created_at_exact, last.id])).toString('base64url')}` : null,
  };
}

function decodeCursor(cursor: string): [number, string, string] {
  try {
    if (!cursor.startsWith(CURSOR_PREFIX)) throw new Error('prefix');
    const [isDead, createdAt, id] = JSON.parse(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8')) as unknown[];
    if ((isDead !== 0 && isDead !== 1) || typeof createdAt !== 'string' || typeof id !== 'string') throw new Error('shape');
    return [isDead, createdAt, id];
  } catch {
    throw new ApiError('VALIDATION_FAILED', 'cursor: not a cursor this service issued; pass nextCursor back unchanged');
  }
}
