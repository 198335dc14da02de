import type { Kysely } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the credit ledger: one row per credit event.';

/** One row per credit event, keyed by event id: the balance is their sum, and a replay adds nothing twice. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('credit_ledger')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('delta', 'bigint', (c) => c.notNull())
    .addColumn('execution_id', 'text')
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_ledger_organization').on('credit_ledger').column('organization_id').execute();
  // The running balance, moved only when a ledger row is new: checking credits stays one row read.
  await db.schema
    .createTable('credit_balances')
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('balance', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('credit_balances').ifExists().execute();
  await db.schema.dropTable('credit_ledger').ifExists().execute();
}
