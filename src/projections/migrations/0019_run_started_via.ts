import type { Kysely } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Records the channel a run was started through (older runs after `seqflow projections rebuild runs`).';

/**
 * Read model: the channel a run was started through (`mcp` for an assistant's production call,
 * `console` for an operator's rerun; null for API keys and the CLI), so a listing can tell an
 * assistant's production runs from callers' traffic. Runs projected before this migration have
 * null until `seqflow projections rebuild runs`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('started_via', 'text').execute();
}
