import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';

/** The tables of the current schema that hold `text` anywhere in a row (as the row's text): where plaintext could survive. */
export async function tablesHolding(db: Kysely<ReadModels>, text: string): Promise<string[]> {
  return tablesHoldingAny(db, [text]);
}

/** The tables holding any of `texts` anywhere in a row (as the row's text, where a bytea column shows as hex). */
export async function tablesHoldingAny(db: Kysely<ReadModels>, texts: readonly string[]): Promise<string[]> {
  const tables = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(db);
  const patterns = texts.map(likePattern);
  const holding: string[] = [];
  for (const { name } of tables.rows) {
    const found = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(name)} AS row WHERE row::text ILIKE ANY (${patterns}::text[])`.execute(db);
    if (found.rows[0]!.n > 0) holding.push(name);
  }
  return holding;
}

/** The event streams whose events hold any of `texts` in their stored data or metadata. */
export async function streamsHoldingAny(db: Kysely<ReadModels>, texts: readonly string[]): Promise<string[]> {
  const patterns = texts.map(likePattern);
  const found = await sql<{ stream_id: string }>`SELECT DISTINCT stream_id FROM seqflow_events AS row WHERE row::text ILIKE ANY (${patterns}::text[]) ORDER BY stream_id`.execute(db);
  return found.rows.map((r) => r.stream_id);
}

const likePattern = (text: string) => `%${text.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_')}%`;

/**
 * The forms a planted marker can take where it is stored or sent: as it is, as hex (a bytea column,
 * a hex dump), and as base64 and base64url at each of the three byte alignments (the first and last
 * four characters of each dropped: they mix with whatever stood beside the marker).
 */
export function encodedForms(marker: string): string[] {
  const bytes = Buffer.from(marker, 'utf8');
  const base64 = [0, 1, 2].flatMap((shift) => {
    const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64').replace(/=+$/, '');
    const inner = text.slice(4, text.length - 4);
    return [inner, inner.replaceAll('+', '-').replaceAll('/', '_')];
  });
  return [...new Set([marker, bytes.toString('hex'), ...base64])];
}

/** Whether `text` holds `marker` in any of its encoded forms (case-insensitive for hex, as the tables are searched). */
export function holdsMarker(text: string, marker: string): boolean {
  const lower = text.toLowerCase();
  return encodedForms(marker).some((form) => (/^[0-9a-f]+$/i.test(form) ? lower.includes(form.toLowerCase()) : text.includes(form)));
}
