import type { Kysely } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Records whether a flow\'s runs have carried images (older runs count after `seqflow projections rebuild flows`).';

/**
 * Read model: whether runs of a flow have carried images (an assistant is warned when such a flow
 * gets a text-only model). Runs recorded before this migration count after `seqflow projections
 * rebuild flows`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('flows').addColumn('receives_images', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}
