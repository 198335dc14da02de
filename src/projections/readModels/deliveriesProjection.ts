import type { Insertable, Transaction } from 'kysely';
import type { DomainEvent } from '../../domain/domainEvent.ts';
import { receiverHost } from '../../domain/webhooks/receiverHost.ts';
import type { Projection, ProjectionContext } from '../projection.ts';
import type { ReadModels, WebhookDeliveriesTable } from '../readModelSchema.ts';
import { type ColumnTypes, updateRows } from '../updateRows.ts';
import { openedWhere } from '../openedWhere.ts';

type DeliveryRow = Insertable<WebhookDeliveriesTable>;
type Changes = Partial<Record<keyof WebhookDeliveriesTable & string, unknown>>;

/** The columns the attempt events set, as updateRows casts them. */
const changeTypes: ColumnTypes<WebhookDeliveriesTable> = { status: 'text', attempts: 'integer', response_status: 'integer', error_excerpt: 'text', next_attempt_at: 'timestamptz', updated_at: 'timestamptz' };

/** The row a created delivery starts as. */
function createdRow(event: Extract<DomainEvent, { type: 'DeliveryCreated' }>, occurredAt: string): DeliveryRow {
  const { deliveryId, organizationId, executionId } = event.data;
  return { id: deliveryId, organization_id: organizationId, execution_id: executionId, event: event.data.event, status: 'pending', attempts: 0, response_status: null, error_excerpt: null, created_at: occurredAt, next_attempt_at: null, updated_at: occurredAt, receiver_host: receiverHost(event.data.url) };
}

/** What an attempt or redelivery event changes in its delivery's row (none for a creation). */
function changesOf(event: DomainEvent, occurredAt: string): { deliveryId: string; changes: Changes } | null {
  switch (event.type) {
    case 'DeliveryAttemptStarted':
      return { deliveryId: event.data.deliveryId, changes: { status: 'in_flight', attempts: event.data.attempt, updated_at: occurredAt } };
    case 'DeliveryAttemptFinished': {
      const { outcome, responseStatus, errorExcerpt, nextAttemptAt } = event.data;
      return { deliveryId: event.data.deliveryId, changes: { status: outcome, response_status: responseStatus, error_excerpt: errorExcerpt, next_attempt_at: nextAttemptAt, updated_at: occurredAt } };
    }
    case 'DeliveryRedeliveryRequested':
      return { deliveryId: event.data.deliveryId, changes: { status: 'pending', next_attempt_at: null, updated_at: occurredAt } };
    case 'DeliveryEnded':
      return { deliveryId: event.data.deliveryId, changes: { status: event.data.reason, next_attempt_at: null, updated_at: occurredAt } };
    default:
      return null;
  }
}

/**
 * The batch's deliveries created (one insert), then each delivery's changes folded in log order,
 * later columns over earlier ones, and written in one statement per set of columns: the rows end as
 * the events applied one by one leave them. One by one, a delivery cost two UPDATEs (its attempt
 * started and finished), most of a drain's statements.
 */
async function applyAll(trx: Transaction<ReadModels>, handed: readonly { event: DomainEvent; context: ProjectionContext }[]) {
  const created: DeliveryRow[] = [];
  const changed = new Map<string, Changes>();
  const erasedRuns: string[] = [];
  // An attempt's excerpt is sealed (one with none was stored unsealed): opened, as this projection keeps it.
  const events = await openedWhere(handed, ({ event }) => event.type === 'DeliveryAttemptFinished');
  for (const { event, context } of events) {
    if (event.type === 'DeliveryCreated') {
      created.push(createdRow(event, context.occurredAt));
      continue;
    }
    if (event.type === 'RunDataErased') {
      erasedRuns.push(event.data.executionId);
      continue;
    }
    const change = changesOf(event, context.occurredAt);
    if (change) changed.set(change.deliveryId, { ...changed.get(change.deliveryId), ...change.changes });
  }
  if (created.length > 0) await trx.insertInto('webhook_deliveries').values(created).onConflict((oc) => oc.column('id').doNothing()).execute();
  await updateRows(trx, 'webhook_deliveries', 'id', changeTypes, changed);
  // An excerpt can quote what the receiver made of the run's data: erased with the run (after the
  // batch's own changes, so an attempt of the batch reads as a rebuild after the erasure would).
  if (erasedRuns.length > 0) await trx.updateTable('webhook_deliveries').set({ error_excerpt: null }).where('execution_id', 'in', erasedRuns).execute();
}

export const deliveriesProjection: Projection = {
  name: 'webhook_deliveries',
  handles: ['DeliveryCreated', 'DeliveryAttemptStarted', 'DeliveryAttemptFinished', 'DeliveryEnded', 'DeliveryRedeliveryRequested', 'RunDataErased'],
  opens: ['DeliveryAttemptFinished'],
  tables: ['webhook_deliveries'],
  async apply(trx, event, context) {
    await applyAll(trx, [{ event, context }]);
  },
  applyAll,
};
