import pg from 'pg';

/**
 * A pool on the test database whose reads of the log after a cursor (each subscriber's batch, the
 * `seqflow_read_after` query) are counted: the positive fact that subscribers looked.
 */
export function poolCountingLogReads(url: string): { pool: pg.Pool; readonly logReads: number } {
  const pool = new pg.Pool({ connectionString: url });
  pool.on('error', () => undefined);
  let logReads = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('seqflow_read_after')) logReads++;
    return query(...args);
  };
  return {
    pool,
    get logReads() {
      return logReads;
    },
  };
}
