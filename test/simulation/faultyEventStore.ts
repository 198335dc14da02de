import type { EventStore } from '../../src/eventstore/eventStore.ts';
import type { SeededRandom } from './seededRandom.ts';

export interface FaultRates {
  /** An append refused before it commits (the connection dropped on the way). */
  appendBeforeCommit: number;
  /** An append that commits, but whose reply is lost (the connection dropped on the way back). */
  appendAfterCommit: number;
  /** A read that fails (a timeout). */
  read: number;
}

const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
/** Refused by the database itself (not retried as a lost connection is). */
const diskFull = () => Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' });

/**
 * A process's view of the log, with faults at its I/O boundary drawn from `random`: appends that fail
 * before or after they commit, reads that fail; and `die()`, after which every call of this process
 * fails (the process died between two awaits: nothing it does reaches the log any more).
 */
export function faultyEventStore(store: EventStore, random: SeededRandom, rates: FaultRates) {
  let dead = false;
  let faults = 0;
  /** Per stream, how each append this process tried went: what a run's end can be judged by. */
  const attempts = new Map<string, ('ok' | 'fault')[]>();
  const tried = (streamId: string, how: 'ok' | 'fault') => attempts.set(streamId, [...(attempts.get(streamId) ?? []), how]);
  const check = () => {
    if (dead) throw Object.assign(new Error('the process died'), { code: 'ECONNREFUSED' });
  };
  const faulty: EventStore = {
    ...store,
    async append(streamId, events, expected, options) {
      check();
      if (random.chance(rates.appendBeforeCommit)) {
        faults++;
        tried(streamId, 'fault');
        throw random.chance(0.5) ? connectionLost() : diskFull();
      }
      const result = await store.append(streamId, events, expected, options);
      check();
      if (random.chance(rates.appendAfterCommit)) {
        faults++;
        tried(streamId, 'fault');
        throw connectionLost();
      }
      tried(streamId, 'ok');
      return result;
    },
    async readStream(streamId, options) {
      check();
      if (random.chance(rates.read)) {
        faults++;
        throw Object.assign(new Error('read timed out'), { code: 'ETIMEDOUT' });
      }
      return store.readStream(streamId, options);
    },
  };
  return {
    store: faulty,
    die: () => void (dead = true),
    faults: () => faults,
    attempts: (streamId: string) => attempts.get(streamId) ?? [],
  };
}
