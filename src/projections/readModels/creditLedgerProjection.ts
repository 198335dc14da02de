import { sql } from 'kysely';
import type { Projection } from '../projection.ts';

export const creditLedgerProjection: Projection = {
  name: 'credit_ledger',
  handles: ['CreditsGranted', 'CreditsConsumed'],
  tables: ['credit_ledger', 'credit_balances'],
  async apply(trx, event, { recorded, occurredAt }) {
    if (event.type !== 'CreditsGranted' && event.type !== 'CreditsConsumed') return;
    const granted = event.type === 'CreditsGranted';
    const delta = granted ? event.data.tokens : -event.data.tokens;
    const inserted = await trx
      .insertInto('credit_ledger')
      .values({
        event_id: recorded.id,
        organization_id: event.data.organizationId,
        delta,
        execution_id: granted ? null : event.data.executionId,
        occurred_at: occurredAt,
      })
      .onConflict((oc) => oc.column('event_id').doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!inserted) return; // seen before: the balance already has it
    await trx
      .insertInto('credit_balances')
      .values({ organization_id: event.data.organizationId, balance: delta })
      .onConflict((oc) => oc.column('organization_id').doUpdateSet({ balance: sql`credit_balances.balance + ${delta}` }))
      .execute();
  },
};
