import { type Kysely, type Selectable, sql } from 'kysely';
import { z } from 'zod';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels, WebhookDeliveriesTable } from '../projections/readModelSchema.ts';
import { exactInstant } from './keysetCursor.ts';

/**
 * The webhook deliveries listing: newest first, paged by a keyset over (created_at, id), so
 * deliveries created in the same instant are neither skipped nor repeated across pages. `before`
 * is the spec's ISO 8601 timestamp (deliveries created strictly earlier), or the opaque
 * `nextCursor` of the previous page, which carries the exact position.
 */
export interface DeliveryPage {
  items: { id: string; executionId: string; event: string; status: string; attempts: number; responseStatus: number | null; errorExcerpt: string | null; createdAt: string; nextAttemptAt: string | null }[];
  nextCursor: string | null;
}

const CURSOR_PREFIX = 'dc1.';
const ISO_TIMESTAMP = z.iso.datetime({ offset: true });

const encodeCursor = (createdAt: string, id: string) => `${CURSOR_PREFIX}${Buffer.from(JSON.stringify([createdAt, id])).toString('base64url')}`;

function decodeBefore(before: string): { createdAt: string; id: string | null } {
  if (!before.startsWith(CURSOR_PREFIX)) {
    if (!ISO_TIMESTAMP.safeParse(before).success) throw new ApiError('VALIDATION_FAILED', 'before: an ISO 8601 timestamp, or the nextCursor of a previous page');
    return { createdAt: new Date(before).toISOString(), id: null };
  }
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(before.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(createdAt))) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw new ApiError('VALIDATION_FAILED', 'before: not a cursor this service issued; pass nextCursor back unchanged');
  }
}

/** A delivery row as both listings show it. */
export const deliveryRow = (r: Selectable<WebhookDeliveriesTable>) => ({
  executionId: r.execution_id,
  event: r.event,
  status: r.status,
  attempts: r.attempts,
  responseStatus: r.response_status,
  errorExcerpt: r.error_excerpt,
  createdAt: r.created_at.toISOString(),
  nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
});

export async function listDeliveries(db: Kysely<ReadModels>, organizationId: string, page: { limit: number; before?: string }): Promise<DeliveryPage> {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .select(exactInstant('created_at').as('created_at_exact'))
    .where('organization_id', '=', organizationId);
  if (page.before !== undefined) {
    const before = decodeBefore(page.before);
    query = before.id === null
      ? query.where('created_at', '<', new Date(before.createdAt))
      : query.where(sql<boolean>`(created_at, id) < (${before.createdAt}::timestamptz, ${before.id})`);
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
  const last = rows.at(-1);
  return {
    items: rows.map((r) => ({ id: r.id, ...deliveryRow(r) })),
    nextCursor: rows.length === page.limit && last ? encodeCursor(last.created_at_exact, last.id) : null,
  };
}
