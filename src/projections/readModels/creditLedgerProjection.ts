import type { Projection } from '../projection.ts';

export const creditLedgerProjection: Projection = {
  name: 'credit_ledger',
  handles: ['CreditsGranted', 'CreditsConsumed'],
  tables: ['credit_ledger'],
  async apply(trx, event, { recorded, occurredAt }) {
    if (event.type !== 'CreditsGranted' && event.type !== 'CreditsConsumed') return;
    const granted = event.type === 'CreditsGranted';
    await trx
      .insertInto('credit_ledger')
      .values({
        event_id: recorded.id,
        organization_id: event.data.organizationId,
        delta: granted ? event.data.tokens : -event.data.tokens,
        execution_id: granted ? null : event.data.executionId,
        occurred_at: occurredAt,
      })
      .onConflict((oc) => oc.column('event_id').doNothing())
      .execute();
  },
};
