import pino from 'pino';
import { sql } from 'kysely';
import type pg from 'pg';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { applyBatch } from '../../src/projections/projectionBatch.ts';
import { createCheckpoints } from '../../src/projections/projectionCheckpoints.ts';
import { deliveriesProjection } from '../../src/projections/readModels/deliveriesProjection.ts';
import { type HostRooms, createDeliveryClaims } from '../../src/workers/deliveryClaims.ts';
import { processDied } from './faultyConnection.ts';
import type { InProcessPostgres } from './inProcessPostgres.ts';
import type { SeededRandom } from './seededRandom.ts';

/** No per-host limit in the simulation: its receivers are few, and the host rooms have tests of their own. */
const HOSTS: HostRooms = { hosts: [], rooms: [], perHost: 1000 };
const LIMIT = 100;
const PAGE = 500;
const silent = pino({ level: 'silent' });
const rolledBack = Symbol('rolled back');

/**
 * The dispatchers' delivery leases as they are: src/workers/deliveryClaims.ts and src/leases/leases.ts,
 * their SQL run on the in-process PostgreSQL, against the `webhook_deliveries` read model that the
 * real deliveries projection keeps (applyBatch over the log, read through the sealing store). The read
 * model lags as the seed draws: a sweep catches it up only some of the time, so claims are made, as
 * live, on rows that do not yet show the last attempt.
 */
export async function postgresDeliveryClaims(postgres: InProcessPostgres, options: { reader: EventStore; random: SeededRandom; leaseMs: number; now: () => number }) {
  const readModels = postgres.kysely(postgres.pool());
  await createCheckpoints(readModels, [deliveriesProjection]).ensure();
  let projected = 0;
  /** Every give-back after a failure to run, with its delay: the invariants check none is "at once". */
  const givenBack: { deliveryId: string; delayMs: number }[] = [];

  async function project() {
    for (;;) {
      const page = await options.reader.readAll(projected, PAGE, { unreadable: 'mark' });
      if (page.length === 0) return;
      projected = await applyBatch(readModels, [deliveriesProjection], new Map(), silent, projected, page, options.now());
    }
  }

  /** One process's claims, over its own connection (faultyConnection.ts: every statement fails once the process has died). */
  function forProcess(owner: string, connection: { pool: pg.Pool; dead: () => boolean }) {
    const claims = createDeliveryClaims(postgres.kysely(connection.pool), { owner, leaseMs: options.leaseMs });
    return {
      /** A sweep: it catches the read model up first, as the projection would have by now, unless the seed says it lags. */
      async claim(skipOrganizations: string[]): Promise<string[]> {
        if (connection.dead()) throw processDied();
        if (options.random.chance(0.7)) await project();
        if (options.random.chance(0.1)) await claims.dropSettled();
        return (await claims.claim(LIMIT, HOSTS, skipOrganizations)).map((claimed) => claimed.id);
      },
      settle: claims.settle,
      renew: claims.renew,
      giveBackAfter: async (deliveryId: string, delayMs: number) => {
        givenBack.push({ deliveryId, delayMs });
        await claims.giveBackAfter(deliveryId, delayMs);
      },
    };
  }

  return {
    forProcess,
    givenBack,
    /** Whether a sweep now would claim anything: the real claim, in a transaction rolled back (the read model caught up first). */
    async anyClaimable(): Promise<boolean> {
      await project();
      let found = false;
      await readModels
        .transaction()
        .execute(async (trx) => {
          found = (await createDeliveryClaims(trx, { owner: 'simulation-probe', leaseMs: options.leaseMs }).claim(LIMIT, HOSTS)).length > 0;
          throw rolledBack;
        })
        .catch((error: unknown) => {
          if (error !== rolledBack) throw error;
        });
      return found;
    },
    /** The earliest moment when a lease that has not run out yet will have (claimable one millisecond after its end). */
    async nextExpiry(): Promise<number> {
      const { rows } = await sql<{ next: Date | null }>`SELECT min(expires_at) AS next FROM delivery_leases WHERE expires_at >= now()`.execute(readModels);
      return rows[0]?.next ? rows[0].next.getTime() + 1 : Infinity;
    },
  };
}
