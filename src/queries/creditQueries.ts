import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** Tokens an organization has left (grants minus consumption), as far as the ledger has been projected. */
export async function creditBalance(db: Kysely<ReadModels>, organizationId: string): Promise<number> {
  const row = await db.selectFrom('credit_balances').select('balance').where('organization_id', '=', organizationId).executeTakeFirst();
  return Number(row?.balance ?? 0);
}

/**
 * `creditBalance`, with the reads for one organization shared while one is in flight: many runs of
 * one organization check its balance before each llm call, and at 32 at once most would ask while
 * another's identical read is on its way. A caller that joins gets a balance read at most one round
 * trip before it asked; the balance is as of the projected ledger in any case. Holds an entry only
 * while its read is in flight (at most one per organization).
 */
export function sharedCreditBalance(db: Kysely<ReadModels>): (organizationId: string) => Promise<number> {
  const inFlight = new Map<string, Promise<number>>();
  return (organizationId) => {
    const pending = inFlight.get(organizationId);
    if (pending) return pending;
    const read = creditBalance(db, organizationId).finally(() => inFlight.delete(organizationId));
    inFlight.set(organizationId, read);
    return read;
  };
}
