import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** Tokens an organization has left (grants minus consumption), as far as the ledger has been projected. */
export async function creditBalance(db: Kysely<ReadModels>, organizationId: string): Promise<number> {
  const row = await db.selectFrom('credit_balances').select('balance').where('organization_id', '=', organizationId).executeTakeFirst();
  return Number(row?.balance ?? 0);
}
