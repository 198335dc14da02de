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

/** The rows in one insert, then one balance change per organization (for the rows that were new) in one upsert. */
async function applyAll(trx: Transaction<ReadModels>, events: readonly { event: DomainEvent; context: ProjectionContext }[]) {
  const rows = events.flatMap(({ event, context }) => ledgerRow(event, context) ?? []);
  if (rows.length === 0) return;
  const inserted = await trx.insertInto('credit_ledger').values(rows).onConflict((oc) => oc.column('event_id').doNothing()).returning('event_id').execute();
  const fresh = new Set(inserted.map((r) => r.event_id));
  const byOrganization = new Map<string, number>();
  for (const row of rows) if (fresh.has(row.event_id)) byOrganization.set(row.organization_id, (byOrganization.get(row.organization_id) ?? 0) + row.delta);
  if (byOrganization.size === 0) return; // all seen before: the balances already have them
  await trx
    .insertInto('credit_balances')
    .values([...byOrganization].map(([organization_id, balance]) => ({ organization_id, balance })))
    .onConflict((oc) => oc.column('organization_id').doUpdateSet({ balance: sql`credit_balances.balance + excluded.balance` }))
    .execute();
}

/**
 * Every grant and charge as a ledger row (keyed by its event, so a replay adds nothing), and each
 * organization's balance moved by the rows that were new: two statements per batch.
 */
export const creditLedgerProjection: Projection = {
  name: 'credit_ledger',
  handles: ['CreditsGranted', 'CreditsConsumed'],
  tables: ['credit_ledger', 'credit_balances'],
  apply: (trx, event, context) => applyAll(trx, [{ event, context }]),
  applyAll,
};
