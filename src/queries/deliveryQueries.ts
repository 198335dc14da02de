import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels, WebhookDeliveriesTable } from '../projections/readModelSchema.ts';
import { afterCreatedCursor, exactInstant, nextCreatedCursor } from './keysetCursor.ts';

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
  if (page.before?.startsWith(CURSOR_PREFIX)) query = query.where(afterCreatedCursor(CURSOR_PREFIX, page.before, 'id', 'before'));
  else if (page.before !== undefined) {
    if (!ISO_TIMESTAMP.safeParse(page.before).success) throw new ApiError('VALIDATION_FAILED', 'before: an ISO 8601 timestamp, or the nextCursor of a previous page');
    query = query.where('created_at', '<', new Date(page.before));
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
  return {
    items: rows.map((r) => ({ id: r.id, ...deliveryRow(r) })),
    nextCursor: nextCreatedCursor(CURSOR_PREFIX, rows, page.limit, (row) => row.id),
  };
}
