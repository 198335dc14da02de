import pg from 'pg';
import type { Logger } from 'pino';

/**
 * A pool whose connections never end the process when PostgreSQL drops them (a restart, a failover,
 * `pg_terminate_backend`, a pooler's idle timeout). node-postgres emits `error` on a client whose
 * server went away; the pool listens only while the client is idle, and an `error` with no listener
 * is an uncaught exception. So every client gets a listener of its own for its whole life: the
 * query in flight fails on its own (its caller retries or answers 503), and the pool drops the
 * broken client when it is released and opens a new one when asked.
 */
export function createDatabasePool(config: pg.PoolConfig, logger: Pick<Logger, 'warn' | 'info'>): pg.Pool {
  const pool = new pg.Pool(config);
  // An idle client's error reaches the pool too; its own listener below has logged it already.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      // A connection cut while this process closes its pool (the embedded PostgreSQL stops after it) is the stop, not a failure.
      if (pool.ending) logger.info({ err: connectionFailure(error) }, 'database connection closed while stopping');
      else logger.warn({ err: connectionFailure(error) }, 'database connection failed');
    });
  });
  return pool;
}

/** What a dropped connection's error says, without the client node-postgres hangs on it (a whole connection's state, logged as JSON). */
function connectionFailure(error: Error & { code?: string; severity?: string }) {
  return { type: error.name, message: error.message, code: error.code, severity: error.severity };
}
