import type pg from 'pg';
import type { InProcessPostgres } from './inProcessPostgres.ts';
import type { SeededRandom } from './seededRandom.ts';

export interface FaultRates {
  /** An append refused before it commits (the connection dropped on the way). */
  appendBeforeCommit: number;
  /** An append that commits, but whose reply is lost (the connection dropped on the way back). */
  appendAfterCommit: number;
  /** A read of the log that fails (a timeout). */
  read: number;
}

const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
/** Refused by the database itself (not retried as a lost connection is). */
const diskFull = () => Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' });
/** What every call of a process that died meets: nothing it does reaches the database any more. */
export const processDied = () => Object.assign(new Error('the process died'), { code: 'ECONNREFUSED' });

const isAppend = (text: string) => text.includes('seqflow_append');
const readsLog = (text: string) => !isAppend(text) && /seqflow_(events|streams)/.test(text);

/**
 * A process's connection to the in-process PostgreSQL, failing beneath the real PostgreSQL adapter
 * (src/eventstore/postgres) as the seed draws it: an append statement refused before it ran (the
 * connection lost, or the disk full) or whose reply is lost after it committed, a read of the log
 * that times out. The process dies after its `dieAfterAppends`-th append commits: from then on every
 * statement fails, and that append's own reply is lost.
 */
export function faultyConnection(postgres: InProcessPostgres, random: SeededRandom, rates: FaultRates, dieAfterAppends = Infinity) {
  let dead = false;
  let faults = 0;
  let appends = 0;
  const fault = (error: Error) => {
    faults++;
    return error;
  };
  const pool: pg.Pool = postgres.pool({
    beforeQuery(text) {
      if (dead) throw processDied();
      if (isAppend(text) && random.chance(rates.appendBeforeCommit)) throw fault(random.chance(0.5) ? connectionLost() : diskFull());
      if (readsLog(text) && random.chance(rates.read)) throw fault(Object.assign(new Error('read timed out'), { code: 'ETIMEDOUT' }));
    },
    afterQuery(text) {
      if (dead) throw processDied();
      if (!isAppend(text)) return;
      if (++appends > dieAfterAppends) {
        dead = true;
        throw processDied();
      }
      if (random.chance(rates.appendAfterCommit)) throw fault(connectionLost());
    },
  });
  return { pool, dead: () => dead, faults: () => faults };
}
