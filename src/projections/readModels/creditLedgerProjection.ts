import { type Transaction, sql } from 'kysely';
import type { DomainEvent } from '../../domain/domainEvent.ts';
import type { Projection, ProjectionContext } from '../projection.ts';
import type { ReadModels } from '../readModelSchema.ts';

/** A credit event as its ledger row. */
function ledgerRow(event: DomainEvent, { recorded, occurredAt }: ProjectionContext) {
  if (event.type !== 'CreditsGranted' && event.type !== 'CreditsConsumed') return undefined;
  const row = { event_id: recorded.id, organization_id: event.data.organizationId, occurred_at: occurredAt };
  if (event.type === 'CreditsGranted') return { ...row, delta: event.data.tokens, execution_id: null, model: null, block_name: null, cost_usd: null };
  return { ...row, delta: -event.data.tokens, execution_id: event.data.executionId, model: event.data.model, block_name: event.data.blockName, cost_usd: event.data.costUsd ?? null };
}

/**
 * The rows and the balances in one statement: the ledger rows that are new (RETURNING of an insert
 * that skips the event ids it holds) move their organizations' balances, summed per organization.
 */
async function applyAll(trx: Transaction<ReadModels>, events: readonly { event: DomainEvent; context: ProjectionContext }[]) {
  const rows = events.flatMap(({ event, context }) => ledgerRow(event, context) ?? []);
  if (rows.length === 0) return;
  await trx
    .with('fresh', (db) => db.insertInto('credit_ledger').values(rows).onConflict((oc) => oc.column('event_id').doNothing()).returning(['organization_id', 'delta']))
    .insertInto('credit_balances')
    .columns(['organization_id', 'balance'])
    .expression((eb) => eb.selectFrom('fresh').select(['organization_id', sql<number>`sum(delta)::bigint`.as('balance')]).groupBy('organization_id'))
    .onConflict((oc) => oc.column('organization_id').doUpdateSet({ balance: sql`credit_balances.balance + excluded.balance` }))
    .execute();
}

/**
 * Every grant and charge as a ledger row (keyed by its event, so a replay adds nothing), and each
 * organization's balance moved by the rows that were new: one statement per batch.
 */
export const creditLedgerProjection: Projection = {
  name: 'credit_ledger',
  handles: ['CreditsGranted', 'CreditsConsumed'],
  tables: ['credit_ledger', 'credit_balances'],
  apply: (trx, event, context) => applyAll(trx, [{ event, context }]),
  applyAll,
};
