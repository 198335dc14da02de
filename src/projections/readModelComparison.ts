import { type Kysely, sql } from 'kysely';
import type { ReadModels } from './readModelSchema.ts';

export interface TableComparison {
  table: string;
  liveRows: number;
  shadowRows: number;
  liveHash: string;
  shadowHash: string;
  /** Up to 5 rows (as text) only in the live table, and only in the shadow. */
  onlyLive: string[];
  onlyShadow: string[];
}

/**
 * Compares each read-model table of the live schema with the shadow's, inside one REPEATABLE READ
 * snapshot of the live rows: a row count and an order-independent hash per table, and for tables
 * that differ, the first rows found in one and not the other. `at` is the live checkpoint the
 * snapshot saw: the caller compares only when the shadow stands exactly there.
 */
export async function compareWithShadow(live: Kysely<ReadModels>, shadowSchema: string, tables: readonly string[], expectPosition: (livePosition: number) => Promise<boolean>) {
  return live
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const checkpoints = await trx.selectFrom('projection_checkpoints').select('position').execute();
      const positions = new Set(checkpoints.map((c) => Number(c.position)));
      if (positions.size !== 1) return { ready: false as const, at: Math.min(...positions) };
      const at = [...positions][0]!;
      if (!(await expectPosition(at))) return { ready: false as const, at };
      const liveSchema = (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(trx)).rows[0]!.schema;
      const results: TableComparison[] = [];
      for (const table of tables) {
        const summary = async (schema: string) =>
          (await sql<{ rows: string; hash: string }>`SELECT count(*) AS rows, md5(coalesce(string_agg(md5(t::text), '' ORDER BY md5(t::text)), '')) AS hash FROM ${sql.id(schema, table)} t`.execute(trx)).rows[0]!;
        const [l, s] = [await summary(liveSchema), await summary(shadowSchema)];
        const only = async (from: string, minus: string) =>
          (await sql<{ row: string }>`SELECT t::text AS row FROM ${sql.id(from, table)} t EXCEPT ALL SELECT t::text FROM ${sql.id(minus, table)} t LIMIT 5`.execute(trx)).rows.map((r) => r.row);
        const differs = l.hash !== s.hash;
        results.push({ table, liveRows: Number(l.rows), shadowRows: Number(s.rows), liveHash: l.hash, shadowHash: s.hash, onlyLive: differs ? await only(liveSchema, shadowSchema) : [], onlyShadow: differs ? await only(shadowSchema, liveSchema) : [] });
      }
      return { ready: true as const, at, tables: results };
    });
}
