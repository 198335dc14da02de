import { type Transaction, sql } from 'kysely';
import type { ReadModels } from './readModelSchema.ts';

/** The PostgreSQL type of each column an update may set: the arrays are cast to it. */
export type ColumnTypes<Row> = { [Column in keyof Row]?: 'text' | 'integer' | 'timestamptz' | 'jsonb' };

/**
 * Updates many rows of `table`, each by its key, in one statement per set of columns changed (rows
 * changing the same columns go together): `UPDATE … FROM unnest(arrays) AS v(…) WHERE key = v.key`.
 * A projection's batch updates hundreds of rows; one statement each would cost a round trip each.
 * Each key appears at most once in `rows` (a batch folds a row's changes first).
 */
export async function updateRows<Table extends keyof ReadModels & string, Key extends keyof ReadModels[Table] & string>(
  trx: Transaction<ReadModels>,
  table: Table,
  key: Key,
  types: ColumnTypes<ReadModels[Table]>,
  rows: ReadonlyMap<string, Partial<Record<keyof ReadModels[Table] & string, unknown>>>,
): Promise<void> {
  const groups = new Map<string, { columns: string[]; keys: string[]; values: unknown[][] }>();
  for (const [rowKey, changes] of rows) {
    const columns = Object.keys(changes).filter((column) => changes[column as keyof typeof changes] !== undefined).sort();
    if (columns.length === 0) continue;
    const shape = columns.join(',');
    const group = groups.get(shape) ?? { columns, keys: [], values: columns.map(() => []) };
    group.keys.push(rowKey);
    columns.forEach((column, i) => group.values[i]!.push(changes[column as keyof typeof changes]));
    groups.set(shape, group);
  }
  for (const { columns, keys, values } of groups.values()) {
    const typeOf = (column: string) => {
      const type = types[column as keyof typeof types];
      if (!type) throw new Error(`updateRows: no type given for ${table}.${column}`);
      return type;
    };
    const arrays = columns.map((column, i) => sql`${values[i]}::${sql.raw(typeOf(column))}[]`);
    const assignments = columns.map((column) => sql`${sql.ref(column)} = v.${sql.ref(column)}`);
    await sql`UPDATE ${sql.table(table)} SET ${sql.join(assignments)}
                FROM unnest(${keys}::text[], ${sql.join(arrays)}) AS v(${sql.ref(key)}, ${sql.join(columns.map((column) => sql.ref(column)))})
               WHERE ${sql.table(table)}.${sql.ref(key)} = v.${sql.ref(key)}`.execute(trx);
  }
}
