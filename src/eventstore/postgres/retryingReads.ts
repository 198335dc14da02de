import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { isConnectionLoss } from '../../database/connectionLoss.ts';
import { RETRY_POLICIES, type RetryPolicy } from '../../domain/retry/retryPolicy.ts';
import { retrying } from '../../supervision/retrying.ts';

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
  attempts: RETRY_POLICIES.lostConnectionRead.maxAttempts,
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
    query: ((...args: Parameters<pg.Pool['query']>) =>
      retrying({ policy: { ...policy, maxAttempts: attempts }, classify: (error) => (isConnectionLoss(error) ? 'retryable' : 'terminal'), random, sleep }, () =>
        (pool.query as (...a: unknown[]) => Promise<unknown>)(...args),
      )) as pg.Pool['query'],
  };
}
