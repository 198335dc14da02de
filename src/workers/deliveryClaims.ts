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
 * holds, oldest due first (`seqflow_due_deliveries`, read-model migration 0025: along an index in
 * due order, so a claim reads about as many rows as it takes, whatever the backlog): at most a
 * host's room in `hosts` (else `perHost`) go to one receiver host, and a full host's are passed
 * over before the limit applies, so its backlog never takes the places of other receivers'
 * deliveries. None of `skipOrganizations` (those whose secrets this worker cannot open) is picked.
 */
export function dueDeliveries(limit: number, hosts: HostRooms, skipOrganizations: readonly string[]) {
  const full = hosts.hosts.filter((_, i) => hosts.rooms[i] === 0);
  return sql`WITH locked AS (
    SELECT id, host, due FROM seqflow_due_deliveries(${limit}::integer, ${full}::text[], ${skipOrganizations}::text[])
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
