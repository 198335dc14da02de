import { sql } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';

/** A timestamp column as its exact stored instant (microseconds) for a cursor: a JavaScript Date keeps only milliseconds. */
export const exactInstant = (column: string) => sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** An opaque page cursor: the sort key of a page's last row, under a prefix that names the listing. */
export const encodeCursor = (prefix: string, key: unknown[]) => `${prefix}${Buffer.from(JSON.stringify(key)).toString('base64url')}`;

/** The sort key a cursor carries, checked by `valid`; anything else is VALIDATION_FAILED, naming the `field` the cursor came in. */
export function decodeCursor<T extends unknown[]>(prefix: string, cursor: string, valid: (key: unknown[]) => key is T, field = 'cursor'): T {
  try {
    if (!cursor.startsWith(prefix)) throw new Error('prefix');
    const key = JSON.parse(Buffer.from(cursor.slice(prefix.length), 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(key) && valid(key)) return key;
  } catch {
    // fall through to the refusal
  }
  throw new ApiError('VALIDATION_FAILED', `${field}: not a cursor this service issued; pass nextCursor back unchanged`);
}

const isCreatedKey = (key: unknown[]): key is [string, string] => typeof key[0] === 'string' && typeof key[1] === 'string' && !Number.isNaN(Date.parse(key[0]));

/** For a listing newest first by (created_at, `idColumn`): the rows after the one `cursor` names. */
export function afterCreatedCursor(prefix: string, cursor: string, idColumn = 'execution_id', field = 'cursor') {
  const [createdAt, id] = decodeCursor(prefix, cursor, isCreatedKey, field);
  return sql<boolean>`(created_at, ${sql.ref(idColumn)}) < (${createdAt}::timestamptz, ${id})`;
}

/** The next page's cursor of such a listing (the last row's exact instant and id): null when this page was not full (it was the last). */
export const nextCreatedCursor = <Row extends { created_at_exact: string }>(prefix: string, rows: Row[], limit: number, idOf: (row: Row) => string) => {
  const last = rows.at(-1);
  return rows.length === limit && last ? encodeCursor(prefix, [last.created_at_exact, idOf(last)]) : null;
};
