import type { Kysely } from 'kysely';
import cron from 'node-cron';
import type { Logger } from 'pino';
import { loadStream } from '../eventstore/streams.ts';
import { delivery } from '../domain/webhooks/delivery.ts';
import { deliveryStream } from '../domain/webhooks/deliveryEvents.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { SupervisedTask } from '../supervision/supervisor.ts';
import type { AttemptDependencies } from './deliveryAttempt.ts';
import { createAttemptFailures } from './attemptFailures.ts';
import { attemptAndSettle } from './attemptAndSettle.ts';
import type { HealthNotes } from '../health/healthNotes.ts';
import { createDeliveryClaims } from './deliveryClaims.ts';
import { createWorkSlots } from './workSlots.ts';
import { createHostSlots } from './hostSlots.ts';
import { receiverHost } from '../domain/webhooks/receiverHost.ts';
import { createCoalescedSweep } from './coalescedSweep.ts';
import { createDatabaseClock } from '../database/databaseClock.ts';
import { createFailureBackoff } from '../supervision/failureBackoff.ts';
import { RETRY_POLICIES } from '../domain/retry/retryPolicy.ts';

export type WebhookDispatcherOptions = Omit<AttemptDependencies, 'principal' | 'timeoutMs'> & {
  db: Kysely<ReadModels>;
  logger: Logger;
  worker: string;
  /** Whole-attempt timeout (default 20 s) and the attempt lease (default 60 s). */
  timeoutMs?: number;
  leaseMs?: number;
  /** Attempts in flight at once in this process (default 128), and of those to one receiver host (default 64). */
  concurrency?: number;
  hostConcurrency?: number;
  /** How long `stop` waits for attempts in flight before releasing their leases. */
  graceMs?: number;
  /** Where an organization whose secrets this worker cannot open is reported (/health). */
  healthNotes?: HealthNotes;
  /** The jitter's randomness for the sweep's backoff after a failed claim (tests fix it). */
  random?: () => number;
  /** The process's clock (tests skew it); attempt times are the database's, measured against it. */
  localClock?: () => number;
};

/**
 * Attempts due deliveries. Due work is data (`webhook_deliveries.next_attempt_at`), swept every
 * second by node-cron; a delivery created in this process is offered at once, leased by its id
 * before its read-model row exists; nothing waits only in a timer. Each attempt holds a lease
 * (deliveryClaims.ts) and one of `concurrency` slots; the attempt itself is deliveryAttempt.ts.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions) {
  const graceMs = options.graceMs ?? 30_000;
  const { logger } = options;
  const worker = options.worker;
  const leaseMs = options.leaseMs ?? 60_000;
  const claims = createDeliveryClaims(options.db, { owner: worker, leaseMs });
  const hosts = createHostSlots(options.hostConcurrency ?? 64);
  const failures = createAttemptFailures({ logger, ...(options.healthNotes ? { healthNotes: options.healthNotes } : {}) });
  // Attempt times from the database's clock: a due retry is claimed by comparing with its now().
  const clock = createDatabaseClock(options.db, options.localClock);
  const attemptDeps: AttemptDependencies = {
    ...options,
    commands: { ...options.commands, now: clock.now },
    principal: { kind: 'system', id: `webhook-dispatcher:${worker}` },
    timeoutMs: options.timeoutMs ?? 20_000,
    admit: (url) => hosts.take(receiverHost(url)),
    secretsRead: (organizationId) => failures.readable(organizationId),
  };
  let task: ReturnType<typeof cron.schedule> | undefined;
  let stopped = false;
  let ended: (() => void) | undefined;
  const slots = createWorkSlots(options.concurrency ?? 128, () => void poke(), (error) => logger.error({ err: error }, 'delivery attempt bookkeeping failed'));

  /**
   * Claims as many due deliveries as there is room for (within each receiver host's room) and starts
   * their attempts without waiting for them: a receiver that is slow to answer holds one slot, and
   * one host at most `hostConcurrency`, never the other deliveries. Sweeps again while it found some:
   * a host's cap may have left due deliveries of other hosts behind the limit.
   */
  async function sweep(): Promise<boolean> {
    const room = slots.free();
    if (room <= 0) return false;
    const claimed = await claims.claim(room, { ...hosts.rooms(), perHost: hosts.perHost }, failures.skippedOrganizations());
    for (const { id, host } of claimed) {
      // Counted now, not when the attempt has read the delivery: the next sweep sees the host's room.
      const admitted = hosts.take(host);
      if (admitted) begin(id, admitted);
      else void claims.settle(id, undefined).catch((error: unknown) => logger.warn({ err: error, deliveryId: id }, 'could not give a delivery lease back'));
    }
    return claimed.length > 0;
  }
  /** One sweep at a time; a request during a sweep runs another right after. */
  // A sweep that failed (the database is likely away) is not tried again before the retry policy's
  // wait: the ticks and offers in between skip it.
  const sweepFailures = createFailureBackoff(RETRY_POLICIES.claimLoop, options.random);
  const sweeps = createCoalescedSweep(
    () =>
      sweep().then(
        (more) => (sweepFailures.succeeded(), more),
        (error: unknown) => {
          const retryInMs = sweepFailures.failed(performance.now());
          logger.warn({ err: error, failures: sweepFailures.failures(), retryInMs }, 'delivery sweep failed');
          return false;
        },
      ),
    () => !stopped && slots.free() > 0 && sweepFailures.due(performance.now()),
  );
  const poke = () => sweeps.request();

  /** Runs an attempt on a leased delivery in a slot, without waiting for it. */
  const begin = (id: string, admitted?: () => void) => slots.run(() => attemptAndSettle(attemptDeps, claims, failures, logger, id, leaseMs, admitted));

  /**
   * A delivery just created in this process: attempted now if there is room, without waiting for its
   * read-model row; otherwise a sweep finds it there.
   */
  async function offer(deliveryId: string) {
    if (stopped || slots.free() <= 0) return;
    try {
      if ((await slots.claiming(() => claims.claimById(deliveryId))) && !stopped) begin(deliveryId);
    } catch (error) {
      logger.warn({ err: error, deliveryId }, 'could not attempt a new delivery at once; a sweep will');
    }
  }

  return {
    worker,
    /** Sweeps now, then every second until stopped: a task for the supervisor (it ends only when stopped). */
    start(): SupervisedTask {
      stopped = false;
      task = cron.schedule('* * * * * *', () => {
        void poke();
        void claims.dropSettled().catch((error: unknown) => logger.warn({ err: error }, 'could not drop settled delivery leases'));
        void clock.refresh().catch((error: unknown) => logger.warn({ err: error }, "could not read the database's clock"));
      });
      // What is due already goes now, not at the next tick (after the clock's first measure): a restarted worker delivers its backlog at once.
      void clock.refresh().catch((error: unknown) => logger.warn({ err: error }, "could not read the database's clock")).finally(poke);
      return { done: new Promise<void>((resolve) => (ended = resolve)), stop: () => this.stop() };
    },
    poke,
    offer,
    /** Stops sweeping and waits for attempts in flight, at most `graceMs`; then releases their leases for another dispatcher. */
    async stop() {
      stopped = true;
      ended?.();
      await task?.stop();
      await sweeps.settled();
      if (await slots.drained(graceMs)) return;
      await claims.releaseAll();
      logger.warn({ inFlight: slots.inFlight() }, 'delivery attempts still in flight at shutdown: their leases are released for another dispatcher');
    },
    /** For operators and tests: the delivery's state as its stream tells it. */
    state: async (deliveryId: string) => (await loadStream(options.commands.eventStore, deliveryStream(deliveryId), delivery)).state,
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
