import type pg from 'pg';
import { isConnectionLoss } from '../../database/connectionLoss.ts';

/** What the log's reads query through. */
export type Reads = Pick<pg.Pool, 'query'>;

const ATTEMPTS = 3;

/**
 * The pool for reads, each retried on a fresh connection when the one it got was lost (a pooled
 * connection that the server terminated a moment ago is handed out before the pool hears of it).
 * Only reads: they change nothing, so a retry cannot double anything.
 */
export function retryingReads(pool: pg.Pool): Reads {
  return {
    query: (async (...args: Parameters<pg.Pool['query']>) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
        } catch (error) {
          if (attempt >= ATTEMPTS || !isConnectionLoss(error)) throw error;
        }
      }
    }) as pg.Pool['query'],
  };
}
