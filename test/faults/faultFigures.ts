import { appendFileSync } from 'node:fs';
import pg from 'pg';

/**
 * A fault test's figures: printed as one `FAULT {json}` line, and appended to the file named by
 * SEQFLOW_FAULT_FIGURES (scripts/fault-suite.sh collects them across runs).
 */
export function reportFigures(fault: string, figures: Record<string, unknown>) {
  const line = JSON.stringify({ fault, ...figures });
  process.stdout.write(`FAULT ${line}\n`);
  if (process.env.SEQFLOW_FAULT_FIGURES) appendFileSync(process.env.SEQFLOW_FAULT_FIGURES, `${line}\n`);
}

/**
 * The log's rows as committed, read with SQL (no subscriber's horizon in between): a fault test
 * watches for the moment to strike, and counts what was written twice.
 */
export async function logRows(databaseUrl: string, where: string, params: unknown[] = []): Promise<{ stream_id: string; event_type: string; data: Record<string, unknown> }[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(`SELECT stream_id, event_type, data FROM seqflow_events WHERE ${where} ORDER BY global_position`, params)).rows;
  } finally {
    await client.end();
  }
}
