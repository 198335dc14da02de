import type { Kysely } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Records each delivery\'s receiver host (older deliveries after `seqflow projections rebuild deliveries`).';

/**
 * Read model: each delivery's receiver host, so a sweep can leave a host that has all it may have
 * in flight to it (SEQFLOW_WEBHOOK_HOST_CONCURRENCY) out of its claim. Deliveries created before
 * this migration have none until `seqflow projections rebuild deliveries`; each counts as a host of
 * its own meanwhile (the dispatcher still bounds them once read).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('receiver_host', 'text').execute();
}
