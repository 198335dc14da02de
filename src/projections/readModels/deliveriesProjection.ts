import { receiverHost } from '../../domain/webhooks/receiverHost.ts';
import type { Projection } from '../projection.ts';

export const deliveriesProjection: Projection = {
  name: 'webhook_deliveries',
  handles: ['DeliveryCreated', 'DeliveryAttemptStarted', 'DeliveryAttemptFinished', 'DeliveryRedeliveryRequested'],
  tables: ['webhook_deliveries'],
  async apply(trx, event, { occurredAt }) {
    switch (event.type) {
      case 'DeliveryCreated': {
        const { deliveryId, organizationId, executionId } = event.data;
        await trx
          .insertInto('webhook_deliveries')
          .values({ id: deliveryId, organization_id: organizationId, execution_id: executionId, event: event.data.event, status: 'pending', attempts: 0, response_status: null, error_excerpt: null, created_at: occurredAt, next_attempt_at: null, updated_at: occurredAt, receiver_host: receiverHost(event.data.url) })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'DeliveryAttemptStarted':
        await trx.updateTable('webhook_deliveries').set({ status: 'in_flight', attempts: event.data.attempt, updated_at: occurredAt }).where('id', '=', event.data.deliveryId).execute();
        return;
      case 'DeliveryAttemptFinished': {
        const { outcome, responseStatus, errorExcerpt, nextAttemptAt } = event.data;
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: outcome, response_status: responseStatus, error_excerpt: errorExcerpt, next_attempt_at: nextAttemptAt, updated_at: occurredAt })
          .where('id', '=', event.data.deliveryId)
          .execute();
        return;
      }
      case 'DeliveryRedeliveryRequested':
        await trx.updateTable('webhook_deliveries').set({ status: 'pending', next_attempt_at: null, updated_at: occurredAt }).where('id', '=', event.data.deliveryId).execute();
        return;
    }
  },
};
