import type { Kysely } from 'kysely';

/**
 * Read model: whether runs of a flow have carried images (an assistant is warned when such a flow
 * gets a text-only model). Runs recorded before this migration count after `seqflow projections
 * rebuild flows`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('flows').addColumn('receives_images', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}
