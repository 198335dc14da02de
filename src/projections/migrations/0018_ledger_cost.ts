import type { Kysely } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Records each charge\'s model, block and cost in US dollars (older charges after `seqflow projections rebuild credit_ledger`).';

/**
 * Read model: each charge's model, block and cost in US dollars, so an organization's usage can be
 * summed by flow, model or day (`seqflow org usage`). Charges projected before this migration have
 * none until `seqflow projections rebuild credit_ledger` (their tokens still count in the balance).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('credit_ledger').addColumn('model', 'text').addColumn('block_name', 'text').addColumn('cost_usd', 'double precision').execute();
  await db.schema.createIndex('credit_ledger_organization_time').on('credit_ledger').columns(['organization_id', 'occurred_at']).execute();
}
