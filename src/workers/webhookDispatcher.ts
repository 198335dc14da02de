import { hostname } from 'node:os';
import type { Tracer } from '@opentelemetry/api';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import cron from 'node-cron';
import type { Logger } from 'pino';
import { type CommandDependencies, handleCommand } from '../commands/commandHandler.ts';
import { loadStream } from '../eventstore/streams.ts';
import { signingSecrets } from '../commands/webhookSecretCommands.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { delivery } from '../domain/webhooks/delivery.ts';
import { deliveryStream } from '../domain/webhooks/deliveryEvents.ts';
import { signatureHeader } from '../domain/webhooks/webhookSignature.ts';
import type { AddressGuard } from '../outbound/addressGuard.ts';
import type { OrganizationStates } from '../queries/organizationStates.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { SupervisedTask } from '../supervision/supervisor.ts';
import { withinGrace } from '../supervision/withinGrace.ts';
import { sendWebhook } from './webhookSender.ts';
import { attemptSpan, endAttemptSpan } from './attemptSpan.ts';
import { contextOf, failSpan } from '../observability/traceContext.ts';

/**
 * Attempts due deliveries. Due work is data (`webhook_deliveries.next_attempt_at`), swept every
 * second by node-cron; a delivery created in this process is offered at once, leased by its id
 * before its read-model row exists (the decider refuses an attempt that is not due, so a lease
 * never makes a wrong one); nothing waits only in a timer. Each
 * attempt is claimed (a lease row, like jobs), recorded as started, signed with a fresh timestamp,
 * sent through the outbound guard (connect 5 s, total 20 s by default, redirects not followed, a bounded
 * excerpt of the answer read), and its outcome recorded. A dispatcher that dies mid-attempt leaves
 * the delivery in flight; its lease runs out and the attempt is made again under the same id.
 */
export function createWebhookDispatcher(options: {
  db: Kysely<ReadModels>;
  commands: CommandDependencies;
  guard: AddressGuard;
  masterKey: Buffer;
  /** Where the signing secret is read from (kept in memory while the log watch runs); else the organization's stream each time. */
  organizations?: OrganizationStates;
  logger: Logger;
  retryDelaysMs?: readonly number[];
  worker?: string;
  /** Whole-attempt timeout (default 20 s) and the attempt lease (default 60 s). */
  timeoutMs?: number;
  leaseMs?: number;
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** How long `stop` waits for attempts in flight before releasing their leases. */
  graceMs?: number;
  /** Told of every attempt's outcome and seconds (the process's metrics). */
  observeAttempt?: (outcome: string, seconds: number) => void;
  /** Makes a span per attempt, in the trace of the run the delivery is about. */
  tracer: Tracer;
}) {
  const graceMs = options.graceMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const { db, commands, guard, masterKey, logger } = options;
  const worker = options.worker ?? `${hostname()}-${process.pid}`;
  const metadata = { principal: { kind: 'system' as const, id: `webhook-dispatcher:${worker}` } };
  let task: ReturnType<typeof cron.schedule> | undefined;
  let sweeping: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let ended: (() => void) | undefined;
  const attempts = new Set<Promise<void>>();
  const concurrency = options.concurrency ?? 32;
  let offering = 0;

  /**
   * Inserts (or takes over, when expired) the leases of the deliveries `rows` names, after the
   * `WITH` clause `withClause`: the ids leased.
   */
  async function takeLeases(withClause: RawBuilder<unknown>, rows: RawBuilder<unknown>): Promise<string[]> {
    const { rows: taken } = await sql<{ delivery_id: string }>`
      ${withClause}
      INSERT INTO delivery_leases (delivery_id, owner, expires_at) ${rows}
      ON CONFLICT (delivery_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, finished_attempts = NULL WHERE delivery_leases.expires_at < now()
      RETURNING delivery_id`.execute(db);
    return taken.map((r) => r.delivery_id);
  }

  const claim = (limit: number) =>
    takeLeases(
      sql`WITH candidate AS (
        SELECT d.id FROM webhook_deliveries d
          LEFT JOIN delivery_leases l ON l.delivery_id = d.id
         WHERE (
                 (d.status = 'pending' AND (l.delivery_id IS NULL OR l.expires_at < now()))
              OR (d.status = 'failed_retry' AND d.next_attempt_at <= now() AND (l.delivery_id IS NULL OR l.expires_at < now()))
                 -- An attempt whose dispatcher died keeps its (expired) lease; one that finished keeps it
                 -- marked with finished_attempts, even while the read model still shows it in flight.
              OR (d.status = 'in_flight' AND l.expires_at < now() AND l.finished_attempts IS NULL)
               )
           -- An attempt finished here that the read model does not show yet is not due again.
           AND (l.finished_attempts IS NULL OR (d.attempts >= l.finished_attempts AND d.status <> 'in_flight'))
         ORDER BY coalesce(d.next_attempt_at, d.created_at)
         LIMIT ${limit}
         FOR UPDATE OF d SKIP LOCKED
      )`,
      sql`SELECT id, ${worker}, now() + ${leaseMs} * interval '1 millisecond' FROM candidate`,
    );

  /** Leases one delivery by id, without its read-model row (it was just created in this process). */
  const claimById = async (deliveryId: string) => (await takeLeases(sql``, sql`VALUES (${deliveryId}, ${worker}, now() + ${leaseMs} * interval '1 millisecond')`)).length === 1;

  /**
   * After an attempt: a finished one leaves its lease expired with the attempt's number (see the
   * claim); one that did not happen (not due, someone else's) gives its lease up.
   */
  async function release(deliveryId: string, finishedAttempt: number | undefined) {
    if (finishedAttempt === undefined) await db.deleteFrom('delivery_leases').where('delivery_id', '=', deliveryId).where('owner', '=', worker).execute();
    else await db.updateTable('delivery_leases').set({ expires_at: sql<string>`now()`, finished_attempts: finishedAttempt }).where('delivery_id', '=', deliveryId).where('owner', '=', worker).execute();
  }

  /** Drops finished leases the read model has caught up with. */
  async function dropCaughtUpLeases() {
    await sql`
      DELETE FROM delivery_leases l USING webhook_deliveries d
       WHERE d.id = l.delivery_id AND l.finished_attempts IS NOT NULL AND l.expires_at < now()
         AND d.attempts >= l.finished_attempts AND d.status <> 'in_flight'`.execute(db);
  }

  /** Makes one attempt; answers its number, or undefined when none was due. */
  async function attempt(deliveryId: string): Promise<number | undefined> {
    const stream = deliveryStream(deliveryId);
    // Read here rather than in the command, for the trace its first event carries (no second read).
    const loaded = await loadStream(commands.eventStore, stream, delivery);
    let started;
    try {
      started = await handleCommand(commands, stream, delivery, { type: 'StartAttempt', data: { now: commands.now().toISOString() } }, { ...metadata, retryOnConflict: false }, loaded);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'CONFLICT') return undefined; // not due, already done, or someone else's
      throw error;
    }
    const state = started.state;
    if (state.status !== 'in_flight') return undefined;
    const attemptNumber = state.attempts;
    const secrets = await signingSecrets(commands, state.organizationId, masterKey, metadata, await options.organizations?.load(state.organizationId));
    const timestamp = Math.floor(commands.now().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Seqflow-Webhook/1.0',
      'x-service-event': state.event,
      'x-service-delivery': deliveryId,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': signatureHeader(timestamp, state.body, secrets),
    };
    const begun = performance.now();
    const span = attemptSpan(options.tracer, contextOf({ traceparent: loaded.recorded[0]?.metadata.traceparent }), { deliveryId, url: state.url, event: state.event, attempt: attemptNumber });
    const sent = await sendWebhook(guard, state.url, headers, state.body, timeoutMs).catch((error: unknown) => {
      failSpan(span, error);
      span.end();
      throw error;
    });
    endAttemptSpan(span, sent.result);
    const { result, excerpt } = sent;
    options.observeAttempt?.(result.kind === 'response' ? (result.status < 300 ? 'succeeded' : `http_${Math.floor(result.status / 100)}xx`) : result.kind, (performance.now() - begun) / 1000);
    await handleCommand(
      commands,
      stream,
      delivery,
      {
        type: 'FinishAttempt',
        data: {
          attempt: attemptNumber,
          result,
          errorExcerpt: result.kind === 'response' && result.status < 300 ? null : excerpt,
          endedAt: commands.now().toISOString(),
          durationMs: Math.round(performance.now() - begun),
          secretVersions: secrets.versions,
          retryDelaysMs: options.retryDelaysMs,
        },
      },
      metadata,
      started, // the stream as StartAttempt left it: no second read
    );
    return attemptNumber;
  }

  /**
   * Claims as many due deliveries as there is room for and starts their attempts without waiting for
   * them: a receiver that is slow to answer holds one slot, never the other deliveries.
   */
  async function sweep() {
    const room = concurrency - attempts.size - offering;
    if (room <= 0) return;
    const ids = await claim(room);
    for (const id of ids) begin(id);
    if (ids.length === room) again = true;
  }

  /** Runs an attempt on a leased delivery without waiting for it: it holds one of the `concurrency` slots. */
  function begin(id: string) {
    const running = attempt(id).then(
      (finished) => release(id, finished).catch(() => undefined),
      async (error: unknown) => {
        logger.error({ err: error, deliveryId: id }, 'delivery attempt failed to run');
        await release(id, undefined).catch(() => undefined);
      },
    ).finally(() => {
      attempts.delete(running);
      void poke();
    });
    attempts.add(running);
  }

  /**
   * A delivery just created in this process: attempted now if there is room, without waiting for its
   * read-model row; otherwise a sweep finds it there.
   */
  async function offer(deliveryId: string) {
    if (stopped || attempts.size + offering >= concurrency) return;
    offering++;
    try {
      if ((await claimById(deliveryId)) && !stopped) begin(deliveryId);
    } catch (error) {
      logger.warn({ err: error, deliveryId }, 'could not attempt a new delivery at once; a sweep will');
    } finally {
      offering--;
    }
  }

  /** One sweep at a time; a request during a sweep runs another right after. */
  function poke(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (sweeping) {
      again = true;
      return sweeping;
    }
    sweeping = (async () => {
      do {
        again = false;
        await sweep().catch((error: unknown) => logger.warn({ err: error }, 'delivery sweep failed'));
      } while (again && attempts.size + offering < concurrency && !stopped);
    })().finally(() => {
      sweeping = undefined;
    });
    return sweeping;
  }

  return {
    worker,
    /** Sweeps every second until stopped: a task for the supervisor (it ends only when stopped). */
    start(): SupervisedTask {
      stopped = false;
      task = cron.schedule('* * * * * *', () => {
        void poke();
        void dropCaughtUpLeases().catch((error: unknown) => logger.warn({ err: error }, 'could not drop finished delivery leases'));
      });
      return { done: new Promise<void>((resolve) => (ended = resolve)), stop: () => this.stop() };
    },
    poke,
    offer,
    /** Stops sweeping and waits for attempts in flight, at most `graceMs`; then releases their leases for another dispatcher. */
    async stop() {
      stopped = true;
      ended?.();
      await task?.stop();
      await sweeping;
      if (await withinGrace(Promise.allSettled([...attempts]), graceMs)) return;
      await sql`UPDATE delivery_leases SET expires_at = now() WHERE owner = ${worker} AND expires_at > now()`.execute(db);
      logger.warn({ inFlight: attempts.size }, 'delivery attempts still in flight at shutdown: their leases are released for another dispatcher');
    },
    /** For operators and tests: the delivery's state as its stream tells it. */
    state: async (deliveryId: string) => (await loadStream(commands.eventStore, deliveryStream(deliveryId), delivery)).state,
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
