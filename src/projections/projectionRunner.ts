import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors/apiError.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { readUpToHead } from '../eventstore/readUpToHead.ts';
import type { Supervisor } from '../supervision/supervisor.ts';
import { nextEventOrTimeout } from '../supervision/wakeableSleep.ts';
import type { Projection } from './projection.ts';
import { CheckpointMoved, type Stall, applyBatch } from './projectionBatch.ts';
import { subscribeProjections } from './projectionSubscription.ts';
import type { ReadModels } from './readModelSchema.ts';
import { type ProjectionStatus, createCheckpoints } from './projectionCheckpoints.ts';

export type { ProjectionStatus } from './projectionCheckpoints.ts';

export interface ProjectionRunnerOptions {
  db: Kysely<ReadModels>;
  eventStore: EventStore;
  projections: readonly Projection[];
  logger: Logger;
  /** Runs the subscription, restarting it when it fails. */
  supervisor: Supervisor;
  batchSize?: number;
}

/**
 * One reader per process feeds every projection from its own checkpoint (see projectionBatch.ts).
 * Its subscription runs under the supervisor; a rebuild elsewhere, or a stalled projection's retry
 * coming due, sends the reader back to the lowest checkpoint.
 */
export function createProjectionRunner(options: ProjectionRunnerOptions) {
  const { db, eventStore, projections, logger } = options;
  // A batch is one read-model transaction, and while it is open it holds back the log's visibility
  // horizon for every subscriber (the delivery creator, the log watch, other processes): 500 kept it
  // open up to ~1 s under load. 128 cut terminal event -> first webhook attempt from p50 ~400 ms to
  // ~120 ms; the projection lag at 1,000 commands/s varied as much between runs at either size.
  const batchSize = options.batchSize ?? 128;
  const advanced = new EventEmitter();
  advanced.setMaxListeners(0);
  const stalls = new Map<string, Stall>();
  let handle: { stop(): Promise<void> } | undefined;

  const checkpoints = createCheckpoints(db, projections);
  const ensureCheckpoints = checkpoints.ensure;
  const minimumPosition = checkpoints.minimum;

  async function batch(from: number, events: Parameters<typeof applyBatch>[5]) {
    const last = await applyBatch(db, projections, stalls, logger, from, events, Date.now());
    advanced.emit('advanced');
    return last;
  }

  const opens = [...new Set(options.projections.flatMap((p) => p.opens ?? []))];
  const run = () => subscribeProjections({ eventStore, batchSize, opens, stalls, ensureCheckpoints, minimumPosition, batch });

  /**
   * Brings every projection up to `head` in this process (the CLI's and tests' way to catch up).
   * Committed events below `head` may still sit above the visibility horizon while an append to
   * the log is still in flight; that is waited out, for at most `timeoutMs`.
   */
  async function catchUpTo(head: number, timeoutMs = 30_000) {
    const stuck = (position: number) => new ApiError('PROJECTION_TIMEOUT', `Read models stayed at log position ${position} for ${timeoutMs} ms: an append transaction stays open and holds the log's visibility horizon back`);
    let cursor = await minimumPosition();
    await readUpToHead(eventStore, { from: cursor, head, pageSize: batchSize }, { stuckMs: timeoutMs, pauseMs: 10, stuck }, async (events) => {
      try {
        cursor = await batch(cursor, events);
      } catch (error) {
        if (!(error instanceof CheckpointMoved)) throw error;
        cursor = error.stored;
      }
      return cursor;
    });
  }

  return {
    /** Runs the reader under the supervisor until `stop`. */
    async start() {
      await ensureCheckpoints();
      handle ??= options.supervisor.supervise('projections', run);
    },

    async stop() {
      await handle?.stop();
      handle = undefined;
    },

    /** Brings every projection up to the log's current head. */
    async catchUp() {
      await ensureCheckpoints();
      await catchUpTo(await eventStore.headPosition());
    },

    /**
     * Read-your-writes: resolves once every projection has passed `position`, or fails after
     * `timeoutMs`. A projection stalled on an event is not waited for (it shows in /health instead).
     */
    async waitForPosition(position: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if ((await minimumPosition(true)) >= position) return;
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new ApiError('PROJECTION_TIMEOUT', `Read models did not reach log position ${position} within ${timeoutMs} ms`);
        await nextEventOrTimeout(advanced, 'advanced', Math.min(remaining, 25));
      }
    },

    status: async (): Promise<ProjectionStatus[]> => checkpoints.status(await eventStore.headPosition()),
  };
}

export type ProjectionRunner = ReturnType<typeof createProjectionRunner>;
