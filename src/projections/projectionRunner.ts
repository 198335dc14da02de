import { EventEmitter } from 'node:events';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors/apiError.ts';
import type { EventStore, OpenInBatch, RecordedEvent } from '../eventstore/eventStore.ts';
import { readUpToHead } from '../eventstore/readUpToHead.ts';
import type { SupervisedTask, Supervisor } from '../supervision/supervisor.ts';
import { nextEventOrTimeout } from '../supervision/wakeableSleep.ts';
import type { Projection, ProjectionGroup } from './projection.ts';
import { type ProjectionStatus, createCheckpoints } from './projectionCheckpoints.ts';
import { CheckpointMoved, type Stall, applyBatch } from './projectionBatch.ts';
import { subscribeProjections } from './projectionSubscription.ts';
import type { ReadModels } from './readModelSchema.ts';

export type { ProjectionStatus } from './projectionCheckpoints.ts';

export interface ProjectionRunnerOptions {
  db: Kysely<ReadModels>;
  eventStore: EventStore;
  projections: readonly Projection[];
  /** How the projections are grouped into runners; one group of them all when not given. */
  groups?: readonly ProjectionGroup[];
  /**
   * Shares the groups among processes under leases: makes the keeper that claims this process's
   * share and starts and stops groups with the hooks (src/leases/projectionLeases.ts). Without it,
   * `start` runs every group in this process.
   */
  leases?: (hooks: GroupHooks) => GroupKeeper;
  logger: Logger;
  /** Runs the reader (and the lease keeper), restarting them when they fail. */
  supervisor: Supervisor;
  batchSize?: number;
}

/** What a lease keeper is handed: the groups, and how to start and stop running one here. */
export interface GroupHooks {
  groups: readonly string[];
  start(group: string): void;
  stop(group: string): Promise<void>;
}

export interface GroupKeeper {
  /** One round now: renew, take this process's share. */
  keepNow(): Promise<void>;
  run(): SupervisedTask;
  /** Stops every group it started and gives their leases back (shutdown). */
  releaseAll(): Promise<void>;
}

/** A projection's status, with the runner (group) it belongs to and who runs that now. */
export interface RunnerProjectionStatus extends ProjectionStatus {
  runner: string;
  /** The process (runner id) holding the group's lease, or null when none does (or without leases). */
  owner: string | null;
}

/**
 * The projections as runners, one per group. With `leases`, `start` runs the groups this process
 * holds (src/leases/projectionLeases.ts); without, all of them. One reader per process (the supervised task
 * `projections`) feeds the projections of the groups it runs, each from its own checkpoint, a batch
 * in one transaction (projectionBatch.ts): groups held by one process cost no more statements than
 * one group, and groups held by different processes go on side by side. A projection stalled on an
 * event is skipped until its retry (the others go on), when the reader goes back for it. The CLI's
 * and tests' `catchUp` runs every group here. Read-your-writes waits on the checkpoints in the
 * database, wherever the groups run.
 */
export function createProjectionRunner(options: ProjectionRunnerOptions) {
  const { db, eventStore, projections, logger, supervisor } = options;
  // A batch is one read-model transaction, and while it is open it holds back the log's visibility
  // horizon for every subscriber (the delivery creator, the log watch, other processes): 500 kept it
  // open up to ~1 s under load. 128 cut terminal event -> first webhook attempt from p50 ~400 ms to
  // ~120 ms; the projection lag at 1,000 commands/s varied as much between runs at either size.
  const batchSize = options.batchSize ?? 128;
  const advanced = new EventEmitter();
  advanced.setMaxListeners(0);
  const groups = new Map((options.groups ?? [{ name: 'all', projections }]).map((group) => [group.name, group]));
  // The reader opens sealed data with this process's own keys (appliesErasures): sound only where each
  // projection that keeps opened data also applies the erasure that clears it.
  for (const p of projections) {
    if ((p.opens?.length ?? 0) > 0 && !p.handles.includes('RunDataErased')) throw new Error(`projection ${p.name} opens sealed data but does not handle RunDataErased`);
  }
  const stalls = new Map<string, Stall>();
  const checkpoints = createCheckpoints(db, projections);

  /** A reader over these projections: where it starts, and how it applies a batch to them. */
  const readerOver = (over: readonly Projection[]) => {
    const theirs = createCheckpoints(db, over);
    return {
      minimumPosition: () => theirs.minimum(),
      async batch(from: number, events: RecordedEvent[], open?: OpenInBatch) {
        const last = await applyBatch(db, over, stalls, logger, from, events, Date.now(), open);
        advanced.emit('advanced');
        return last;
      },
    };
  };

  // The groups this process runs; the reader is restarted over them whenever they change.
  const active = new Set<string>();
  let reader: { stop(): Promise<void> } | undefined;
  let changing = Promise.resolve();
  let queued = false;
  // Changes that come together (a keeper taking several groups at once) make one restart, not one each.
  const restartReader = () => {
    if (queued) return changing;
    queued = true;
    return (changing = changing.then(async () => {
      queued = false;
      await reader?.stop();
      reader = undefined;
      const over = [...active].flatMap((name) => groups.get(name)!.projections);
      if (over.length === 0) return;
      const { minimumPosition, batch } = readerOver(over);
      const names = new Set(over.map((p) => p.name));
      const retryDue = () => Math.min(...[...stalls].filter(([name]) => names.has(name)).map(([, stall]) => stall.retryAt));
      reader = supervisor.supervise('projections', () => subscribeProjections({ eventStore, batchSize, retryDue, ensureCheckpoints: checkpoints.ensure, minimumPosition, batch }));
    }).catch((error: unknown) => {
      // Not left rejected: every later change would be skipped, and the groups this process holds never read.
      logger.error({ err: error, groups: [...active] }, 'could not restart the projections reader');
    }));
  };
  const runGroup = (name: string) => {
    active.add(name);
    void restartReader();
  };
  const stopGroup = async (name: string) => {
    active.delete(name);
    await restartReader();
  };
  const leases = options.leases?.({ groups: [...groups.keys()], start: runGroup, stop: stopGroup });
  let keeper: { stop(): Promise<void> } | undefined;

  return {
    /** Runs the groups (with leases: those this process takes) under the supervisor until `stop`. */
    async start() {
      await checkpoints.ensure();
      if (!leases) {
        for (const name of groups.keys()) runGroup(name);
        return;
      }
      if (keeper) return;
      // This process's share is taken and read before start returns; the keeper then keeps it.
      await leases.keepNow();
      await changing;
      keeper = supervisor.supervise('projection-leases', leases.run);
    },

    async stop() {
      await keeper?.stop();
      keeper = undefined;
      if (leases) await leases.releaseAll();
      active.clear();
      await restartReader();
    },

    /**
     * Brings every projection up to the log's current head, in this process. Committed events below
     * the head may still sit above the visibility horizon while an append to the log is in flight;
     * that is waited out, for at most `timeoutMs`.
     */
    async catchUp(timeoutMs = 30_000) {
      await checkpoints.ensure();
      const head = await eventStore.headPosition();
      const { minimumPosition, batch } = readerOver(projections);
      const stuck = (position: number) => new ApiError('PROJECTION_TIMEOUT', `Read models stayed at log position ${position} for ${timeoutMs} ms: an append transaction stays open and holds the log's visibility horizon back`);
      let cursor = await minimumPosition();
      // As the subscription hands them over: a sealed value that does not open reads as erased, marked, and stalls nothing.
      await readUpToHead(eventStore, { from: cursor, head, pageSize: batchSize, unreadable: 'mark' }, { stuckMs: timeoutMs, pauseMs: 10, stuck }, async (events) => {
        try {
          cursor = await batch(cursor, events);
        } catch (error) {
          if (!(error instanceof CheckpointMoved)) throw error;
          cursor = error.stored;
        }
        return cursor;
      });
    },

    /**
     * Read-your-writes: resolves once every projection has passed `position`, or fails after
     * `timeoutMs`. A projection stalled on an event is not waited for (it shows in /health instead).
     */
    async waitForPosition(position: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if ((await checkpoints.minimum(true)) >= position) return;
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new ApiError('PROJECTION_TIMEOUT', `Read models did not reach log position ${position} within ${timeoutMs} ms`);
        await nextEventOrTimeout(advanced, 'advanced', Math.min(remaining, 25));
      }
    },

    async status(): Promise<RunnerProjectionStatus[]> {
      const [statuses, owners] = await Promise.all([eventStore.headPosition().then((head) => checkpoints.status(head)), options.leases ? projectionRunnerOwners(db) : new Map<string, string>()]);
      const runnerOf = new Map([...groups.values()].flatMap((group) => group.projections.map((p) => [p.name, group.name] as const)));
      return statuses.map((s) => {
        const runner = runnerOf.get(s.name)!;
        return { ...s, runner, owner: owners.get(runner) ?? null };
      });
    },
  };
}

export type ProjectionRunner = ReturnType<typeof createProjectionRunner>;

/** Each group's live holder, by group name. */
async function projectionRunnerOwners(db: Kysely<ReadModels>): Promise<Map<string, string>> {
  const rows = await db.selectFrom('projection_leases').select(['runner_name', 'owner']).where('runner_name', 'not like', 'member:%').where('expires_at', '>', sql<Date>`now()`).where('done_at', 'is', null).execute();
  return new Map(rows.map((r) => [r.runner_name, r.owner]));
}
