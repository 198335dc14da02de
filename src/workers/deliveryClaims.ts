import { type Kysely, sql } from 'kysely';
import { createLeases } from '../leases/leases.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** Each receiver host's room for more attempts, and the room of a host not listed. */
export interface HostRooms {
  hosts: string[];
  rooms: number[];
  perHost: number;
}

/**
 * The `WITH candidate AS (…)` clause that picks, and locks, up to `limit` due deliveries nobody
 * holds, oldest due first: at most a host's room in `hosts` (else `perHost`) go to one receiver
 * host, and a full host's are passed over before the limit applies, so its backlog never takes the
 * places of other receivers' deliveries. None of `skipOrganizations` (those whose secrets this
 * worker cannot open) is picked.
 *
 * Its order is the `webhook_deliveries_due_order` index's (migration 0025), so PostgreSQL walks
 * the due deliveries from the oldest and stops at the limit: a claim reads about as many rows as
 * it takes, whatever the backlog. Ordered by an expression no index had, every claim read and
 * sorted the whole backlog (6 ms a claim at 10,000 deliveries, most of a drain's database time).
 */
export function dueDeliveries(limit: number, hosts: HostRooms, skipOrganizations: readonly string[]) {
  const full = hosts.hosts.filter((_, i) => hosts.rooms[i] === 0);
  // A delivery from before the read model kept its host counts as a host of its own.
  const host = sql`coalesce(d.receiver_host, d.id)`;
  return sql`WITH locked AS (
    SELECT d.id, ${host} AS host, coalesce(d.next_attempt_at, d.created_at) AS due FROM webhook_deliveries d
      LEFT JOIN delivery_leases l ON l.delivery_id = d.id
     WHERE (
             (d.status = 'pending' AND (l.delivery_id IS NULL OR l.expires_at < now()))
          OR (d.status = 'failed_retry' AND d.next_attempt_at <= now() AND (l.delivery_id IS NULL OR l.expires_at < now()))
             -- An attempt whose dispatcher died keeps its (expired) lease; one that finished keeps it
             -- marked with finished_attempts, even while the read model still shows it in flight.
          OR (d.status = 'in_flight' AND l.expires_at < now() AND l.finished_attempts IS NULL)
           )
       -- The due-order index's own condition, said as it is: the planner need not prove it from the ORs above.
       AND d.status IN ('pending', 'failed_retry', 'in_flight')
       -- An attempt finished here that the read model does not show yet is not due again.
       AND (l.finished_attempts IS NULL OR (d.attempts >= l.finished_attempts AND d.status <> 'in_flight'))
       AND ${host} <> ALL(${full}::text[])
       -- Organizations whose secrets this worker cannot open: another worker may.
       AND d.organization_id <> ALL(${skipOrganizations}::text[])
     ORDER BY coalesce(d.next_attempt_at, d.created_at)
     LIMIT ${limit}
     FOR UPDATE OF d SKIP LOCKED
  ), candidate AS (
    SELECT r.id FROM (SELECT id, host, row_number() OVER (PARTITION BY host ORDER BY due) AS n FROM locked) r
      LEFT JOIN unnest(${hosts.hosts}::text[], ${hosts.rooms}::integer[]) AS b(host, room) ON b.host = r.host
     WHERE r.n <= coalesce(b.room, ${hosts.perHost})
  )`;
}

/**
 * Which deliveries a dispatcher holds: due ones claimed from the read model (or one just created
 * here, by its id), on the shared lease mechanism. What is due, and when a finished attempt's lease
 * may go, is read from `webhook_deliveries`.
 */
export function createDeliveryClaims(db: Kysely<ReadModels>, options: { owner: string; leaseMs: number }) {
  const leases = createLeases(db, { kind: 'delivery', ...options });
  return {
    owner: options.owner,
    /** Claims the deliveries `dueDeliveries` picks; each with its host, for the dispatcher to count before the attempt reads the delivery. */
    claim: async (limit: number, hosts: HostRooms, skipOrganizations: string[] = []): Promise<{ id: string; host: string }[]> => {
      const ids = (await leases.claim(dueDeliveries(limit, hosts, skipOrganizations))).map((lease) => lease.id);
      if (ids.length === 0) return [];
      const rows = await db.selectFrom('webhook_deliveries').select(['id', 'receiver_host']).where('id', 'in', ids).execute();
      return rows.map((row) => ({ id: row.id, host: row.receiver_host ?? row.id }));
    },
    /** Leases one delivery by id, without its read-model row (it was just created in this process). */
    claimById: async (deliveryId: string) => (await leases.claimById(deliveryId)) !== undefined,
    /**
     * After an attempt: a finished one leaves its lease expired with the attempt's number (see the
     * claim); one that did not happen (not due, someone else's) or failed to run gives it up.
     */
    settle: (deliveryId: string, finishedAttempt: number | undefined) => (finishedAttempt === undefined ? leases.release(deliveryId) : leases.finish(deliveryId, finishedAttempt)),
    /** After an attempt that failed to run: the lease goes back after the retry policy's delay, not at once. */
    giveBackAfter: leases.releaseAfter,
    /** Extends a held lease: an attempt renews it while it waits for a slow receiver. */
    renew: leases.renew,
    releaseAll: leases.releaseAll,
    /** Drops the leases nobody holds that the read model has caught up with (finished attempts it shows, released ones of deliveries not in flight). */
    async dropSettled() {
      await sql`
        DELETE FROM delivery_leases l USING webhook_deliveries d
         WHERE d.id = l.delivery_id AND l.expires_at < now() AND d.status <> 'in_flight'
           AND (l.finished_attempts IS NULL OR d.attempts >= l.finished_attempts)`.execute(db);
    },
  };
}

export type DeliveryClaims = ReturnType<typeof createDeliveryClaims>;
