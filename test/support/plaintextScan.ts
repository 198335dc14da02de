import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';

/** The tables of the current schema that hold `text` anywhere in a row (as the row's text): where plaintext could survive. */
export async function tablesHolding(db: Kysely<ReadModels>, text: string): Promise<string[]> {
  const tables = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(db);
  const holding: string[] = [];
  for (const { name } of tables.rows) {
    const found = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(name)} AS row WHERE row::text LIKE ${`%${text}%`}`.execute(db);
    if (found.rows[0]!.n > 0) holding.push(name);
  }
  return holding;
}
