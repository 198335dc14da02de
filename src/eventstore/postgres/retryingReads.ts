import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { isConnectionLoss } from '../../database/connectionLoss.ts';
import { RETRY_POLICIES, type RetryPolicy, retryDelayMs } from '../../domain/retry/retryPolicy.ts';

/** What the log's reads query through. */
export type Reads = Pick<pg.Pool, 'query'>;

export interface ReadRetries {
  /** Tries in all, the first included. */
  attempts: number;
  policy: RetryPolicy;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

const defaults: ReadRetries = {
  attempts: 5,
  policy: RETRY_POLICIES.lostConnectionRead,
  random: Math.random,
  sleep: async (ms) => void (await sleep(ms)),
};

/**
 * The pool for reads, each retried on a fresh connection when the one it got was lost (a pooled
 * connection that the server terminated a moment ago is handed out before the pool hears of it).
 * Only reads: they change nothing, so a retry cannot double anything. Each retry waits first, by the
 * retry policy: `pg_terminate_backend` returns before the backends it signalled have gone, and
 * the pool drops a dead connection only once its socket says so, so retries at once could each take
 * another connection on its way out (seen in the fault suite: three in a row, and the read failed).
 */
export function retryingReads(pool: pg.Pool, retries: Partial<ReadRetries> = {}): Reads {
  const { attempts, policy, random, sleep } = { ...defaults, ...retries };
  return {
    query: (async (...args: Parameters<pg.Pool['query']>) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
        } catch (error) {
          if (attempt >= attempts || !isConnectionLoss(error)) throw error;
          await sleep(retryDelayMs(policy, attempt, random()));
        }
      }
    }) as pg.Pool['query'],
  };
}
