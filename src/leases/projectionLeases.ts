import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { createLeases } from './leases.ts';
import type { SupervisedTask } from '../supervision/supervisor.ts';
import { periodicTask } from '../supervision/periodicTask.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/**
 * Which groups of projections this process runs: each group under a lease (`projection_leases`),
 * so that across worker processes every group has one reader, and the groups are shared out.
 *
 * Every process that runs projections also holds a member lease (`member:<runner id>`, same table,
 * same term), so the others know how many share the groups. Every third of the term, the keeper:
 * 1. renews its member lease and the group leases it holds; a group whose lease was taken over
 *    (this process was cut off for longer than the term) is stopped here;
 * 2. works out its share: the groups divided by the live members, rounded up;
 * 3. gives back what it holds beyond its share (stopped first, then released: claimable at once),
 *    and claims free or expired group leases up to it.
 *
 * Crash rules: a process that dies stops renewing; its member lease and its groups' leases expire
 * together, one term later, so the others' shares grow as its groups come free, and their keepers
 * claim them, each reader starting from its projections' checkpoints: nothing is skipped. Nothing is
 * applied twice either, even while an old holder has not yet noticed its lease is gone: a batch
 * moves its projections' checkpoints in the transaction that applies it, under the checkpoint rows'
 * locks, and skips the events a checkpoint already covers (src/projections/projectionBatch.ts).
 */
export interface ProjectionLeaseOptions {
  db: Kysely<ReadModels>;
  /** This process's runner id (its runner lease): unique per process. */
  owner: string;
  leaseMs: number;
  groups: readonly string[];
  logger: Pick<Logger, 'info'>;
  /** Starts running a group whose lease this process just took. */
  start(group: string): void;
  /** Stops running a group (before its lease is given back). */
  stop(group: string): Promise<void>;
}

export function createProjectionLeases(options: ProjectionLeaseOptions) {
  const { db, owner, groups, logger } = options;
  const leases = createLeases(db, { kind: 'projection', owner, leaseMs: options.leaseMs });
  const held: string[] = [];
  // Processes start claiming at different groups, so two starting together do not race for the same first one.
  const offset = [...owner].reduce((sum, c) => sum + c.charCodeAt(0), 0) % Math.max(1, groups.length);
  const order = [...groups.slice(offset), ...groups.slice(0, offset)];

  async function drop(group: string, why: string) {
    held.splice(held.indexOf(group), 1);
    await options.stop(group);
    logger.info({ projectionRunner: group, owner }, why);
  }

  const member = `member:${owner}`;
  async function share(): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM projection_leases WHERE runner_name LIKE 'member:%' AND expires_at > now() AND done_at IS NULL`.execute(db);
    return Math.ceil(groups.length / Math.max(1, rows[0]!.n));
  }

  async function keep() {
    if (!(await leases.renew(member)) && !(await leases.claimById(member))) throw new Error(`the member lease ${member} is held by another process`);
    for (const group of [...held]) if (!(await leases.renew(group))) await drop(group, 'projection runner lease taken over: stopped here');
    const mine = await share();
    while (held.length > mine) {
      const group = held.at(-1)!;
      await drop(group, 'projection runner given back: more processes share the groups');
      await leases.release(group);
    }
    for (const group of order) {
      if (held.length >= mine) break;
      if (held.includes(group) || !(await leases.claimById(group))) continue;
      held.push(group);
      options.start(group);
      logger.info({ projectionRunner: group, owner }, 'projection runner taken');
    }
    // Members that left (released or expired) a while ago: the table keeps only the groups and the live.
    await db.deleteFrom('projection_leases').where('runner_name', 'like', 'member:%').where('expires_at', '<', sql<Date>`now() - interval '1 minute'`).execute();
  }

  return {
    /** One round now (a start takes its share before it returns). */
    keepNow: keep,
    /** The keeper, as a supervised task: a round at once, then every third of the term. */
    run: (): SupervisedTask => periodicTask(Math.max(50, Math.floor(options.leaseMs / 3)), keep),
    /** Stops every group this process runs and gives their leases back, and its member lease (shutdown). */
    async releaseAll() {
      for (const group of [...held]) await drop(group, 'projection runner given back: shutting down');
      await leases.releaseAll();
    },
  };
}
