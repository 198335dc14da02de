import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { turnBatchedLookup } from '../database/turnBatchedLookup.ts';
import { createWriteCombiner } from './writeCombiner.ts';

/**
 * Leases: which worker holds which piece of work, until when. Jobs and webhook deliveries (and any
 * work with an owner) share this one mechanism; what is due stays the caller's question (its read
 * model), who holds it is answered here.
 *
 * Crash semantics, stated once:
 * - `claim` (by sweep, over the caller's candidates) and `claimById` insert a lease, or take one
 *   over only when it has expired and its work may be held again: two claimants racing for the
 *   same work get one lease between them (the row's key, and `ON CONFLICT … WHERE expired`
 *   re-checked under the row's lock). A taken-over lease counts one claim more.
 * - A holder that dies stops renewing: its lease expires `leaseMs` later and the work is claimable
 *   again. Nothing else needs cleaning up; a holder that is only slow finds the work moved on in
 *   the log (its next append is refused), never two holders believing they own it.
 * - `renew` extends only a lease its owner still holds: an old owner cannot win a lease back.
 * - `release` makes a held lease expire now: claimable at once by anyone. It is what a holder does
 *   when its work did not start (not due, someone else's) and at shutdown (`releaseAll`): the work
 *   is never left waiting out a lease nobody uses. Work that failed to run is given back with
 *   `releaseAfter`, the retry policy's delay: never re-claimed at once after a failure.
 * - `park` gives a held lease up for work that waits for something outside it (a job at an approval
 *   block): the row goes, so the work is claimed afresh (its claims counted from one again: a wait
 *   is not a failed claim) once its read model says it may go on. A holder that dies before parking
 *   leaves the lease to expire; a claim that finds the work still waiting parks it again.
 * - `finish` marks the work done. A job's lease is then never taken again (a job runs to its end
 *   once). A delivery's lease is expired at once and keeps the attempt's number (`round`), so a
 *   sweep that reads a read model not yet showing that attempt does not claim it again; the next
 *   attempt, when due, takes the lease over.
 * - A runner's lease is a process's own: it claims it by its id at start, keeps it while up and
 *   releases it at close. The runs it runs name it; a run whose runner's lease is not live is ended
 *   by a sweep (src/runs/interruptedRuns.ts), which then deletes the dead runner's row.
 * - A projection runner's lease (a group of projections) is held by one worker process, renewed while
 *   it runs them and released at close or when it holds more than its share; a process that dies
 *   leaves it to expire and another takes it over (projectionLeases.ts). Two
 *   holders at once (the old one slow to notice) cannot apply an event twice: each batch moves the
 *   projections' checkpoints in the transaction that applies it, under the checkpoint rows' locks.
 */
export type LeaseKind = 'job' | 'delivery' | 'runner' | 'projection';

const TABLES = {
  job: { table: 'job_leases', key: 'execution_id', finishedIsFinal: true },
  delivery: { table: 'delivery_leases', key: 'delivery_id', finishedIsFinal: false },
  runner: { table: 'runner_leases', key: 'runner_id', finishedIsFinal: true },
  projection: { table: 'projection_leases', key: 'runner_name', finishedIsFinal: true },
} as const;

export interface Lease {
  id: string;
  /** How many times this work has been claimed, this claim included. */
  claims: number;
}

export interface LeaseOptions {
  kind: LeaseKind;
  owner: string;
  leaseMs: number;
}

export function createLeases(db: Kysely<ReadModels>, { kind, owner, leaseMs }: LeaseOptions) {
  const { table, key, finishedIsFinal } = TABLES[kind];
  const leases = sql.table(table);
  const id = sql.ref(key);
  const until = sql`now() + ${leaseMs} * interval '1 millisecond'`;
  // A finished round of repeatable work (a delivery attempt) may be held again; a finished job never.
  const mayTakeOver = finishedIsFinal ? sql`${leases}.done_at IS NULL` : sql`true`;
  const resetRound = finishedIsFinal ? sql`` : sql`, finished_attempts = NULL`;

  // Each row's own round: one UPDATE over the arrays, joined on the key.
  const finishCombined = createWriteCombiner<{ workId: string; round: number | null }>(async (done) => {
    const workIds = done.map((d) => d.workId);
    const roundDone = finishedIsFinal ? sql`` : sql`, expires_at = now(), finished_attempts = v.round`;
    await sql`UPDATE ${leases} SET done_at = now()${roundDone}
                FROM unnest(${workIds}::text[], ${done.map((d) => d.round)}::integer[]) AS v(work_id, round)
               WHERE ${leases}.${id} = v.work_id AND ${leases}.owner = ${owner}`.execute(db);
  });

  // Claims by id asked for in one turn: one INSERT of them all (each id once), each asker answered from its rows.
  const claimsById = turnBatchedLookup(async (workIds: string[]) => {
    // In one order in every batch: two batches inserting the same ids never wait on each other in a cycle.
    const rows = sql.join([...workIds].sort().map((workId) => sql`(${workId}, ${owner}, ${until}, 1)`));
    return new Map((await take(sql``, sql`VALUES ${rows}`)).map((lease) => [lease.id, lease]));
  }, 200);

  async function take(withClause: RawBuilder<unknown>, rows: RawBuilder<unknown>): Promise<Lease[]> {
    const { rows: taken } = await sql<{ id: string; claims: number }>`
      ${withClause}
      INSERT INTO ${leases} (${id}, owner, expires_at, claims) ${rows}
      ON CONFLICT (${id}) DO UPDATE
        SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, claims = ${leases}.claims + 1, done_at = NULL${resetRound}
        WHERE ${leases}.expires_at < now() AND ${mayTakeOver}
      RETURNING ${id} AS id, claims`.execute(db);
    return taken.map((row) => ({ id: row.id, claims: Number(row.claims) }));
  }

  return {
    owner,
    /**
     * Claims up to `limit` of the work `candidates` selects: a `WITH candidate AS (SELECT <id> …)`
     * clause over the caller's read model, locked `FOR UPDATE … SKIP LOCKED` so sweeps in other
     * processes pass over what this one is taking.
     */
    claim: (candidates: RawBuilder<unknown>) => take(candidates, sql`SELECT * , ${owner}, ${until}, 1 FROM candidate`),
    /**
     * Claims one piece of work by its id, without its read-model row (work just accepted in this
     * process). Claims asked for in one turn of the event loop go in one statement; if the same
     * work is asked for twice in it, the first asker takes the lease and the second is told it is
     * taken, as a second statement would have told it.
     */
    claimById: async (workId: string): Promise<Lease | undefined> => {
      const taken = await claimsById([workId]);
      const lease = taken.get(workId);
      taken.delete(workId);
      return lease;
    },
    /** Extends a lease this owner still holds; answers whether it did (false: the lease was taken over or finished). */
    renew: async (workId: string): Promise<boolean> => {
      const { numAffectedRows } = await sql`UPDATE ${leases} SET expires_at = ${until} WHERE ${id} = ${workId} AND owner = ${owner} AND done_at IS NULL`.execute(db);
      return Number(numAffectedRows ?? 0) > 0;
    },
    release: async (workId: string) => {
      await sql`UPDATE ${leases} SET expires_at = now() WHERE ${id} = ${workId} AND owner = ${owner} AND done_at IS NULL`.execute(db);
    },
    /**
     * Gives a held lease back after `delayMs`: the work failed to run, and is claimable again once
     * the retry policy's delay has passed, not at once.
     */
    releaseAfter: async (workId: string, delayMs: number) => {
      await sql`UPDATE ${leases} SET expires_at = now() + ${Math.max(0, Math.round(delayMs))} * interval '1 millisecond' WHERE ${id} = ${workId} AND owner = ${owner} AND done_at IS NULL`.execute(db);
    },
    /** Gives up a lease this owner holds for work that waits (see the header): the row is removed. */
    park: async (workId: string) => {
      await sql`DELETE FROM ${leases} WHERE ${id} = ${workId} AND owner = ${owner} AND done_at IS NULL`.execute(db);
    },
    /** Whether this owner still holds the work's lease (not expired, not done): a holder checks before it takes work back. */
    holds: async (workId: string): Promise<boolean> => {
      const { rows } = await sql<{ held: boolean }>`SELECT true AS held FROM ${leases} WHERE ${id} = ${workId} AND owner = ${owner} AND expires_at > now() AND done_at IS NULL`.execute(db);
      return rows.length > 0;
    },
    /** Releases every lease this owner holds (shutdown); answers how many. */
    releaseAll: async (): Promise<number> => {
      const { numAffectedRows } = await sql`UPDATE ${leases} SET expires_at = now() WHERE owner = ${owner} AND done_at IS NULL AND expires_at > now()`.execute(db);
      return Number(numAffectedRows ?? 0);
    },
    /**
     * Marks the work done; `round` is the attempt that finished, for repeatable work. Finishes that
     * arrive while one is being written go together in the next statement (a worker with many
     * slots ends many pieces of work at once): one round trip for them all.
     */
    finish: (workId: string, round?: number) => finishCombined({ workId, round: round ?? null }),
  };
}

export type Leases = ReturnType<typeof createLeases>;
