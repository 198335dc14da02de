import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { getWebhookSecret, signingSecrets } from '../../src/commands/webhookSecretCommands.ts';
import { organization } from '../../src/domain/organizations/organization.ts';
import { organizationStream } from '../../src/domain/organizations/organizationEvents.ts';
import { MAX_STARTS_PER_ATTEMPT, delivery } from '../../src/domain/webhooks/delivery.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { MAX_ATTEMPTS } from '../../src/domain/webhooks/retryPolicy.ts';
import { computeSignature } from '../../src/domain/webhooks/webhookSignature.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { loadStream } from '../../src/eventstore/streams.ts';
import { sealingEventStore } from '../../src/eventstore/sealingEventStore.ts';
import type { AddressGuard } from '../../src/outbound/addressGuard.ts';
import { attemptAndSettle } from '../../src/workers/attemptAndSettle.ts';
import { createAttemptFailures } from '../../src/workers/attemptFailures.ts';
import type { DeliveryState } from '../../src/domain/webhooks/delivery.ts';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { faultyConnection } from './faultyConnection.ts';
import { loopTurns } from './loopTurns.ts';
import { seededIds, seededRandom } from './seededRandom.ts';
import type { InProcessPostgres } from './inProcessPostgres.ts';
import { postgresDeliveryClaims } from './postgresDeliveryClaims.ts';
import { simulatedKeyTable } from './simulatedKeyTable.ts';
import { simulatedReceiver } from './simulatedReceiver.ts';
import { virtualClock } from './virtualClock.ts';

const LEASE_MS = 60_000;
/** Sweeps a schedule may take before a delivery that has not ended counts as stuck. */
const MAX_SWEEPS = 3_000;
const MASTER_KEY = Buffer.alloc(32, 7);
const WRONG_KEY = Buffer.alloc(32, 9);
const ENDED = new Set(['succeeded', 'failed_permanent', 'dead_letter', 'data_erased', 'data_unreadable']);
const silent = pino({ level: 'silent' });

export interface DeliveryScheduleResult {
  seed: number;
  deliveries: number;
  posts: number;
  faults: number;
  /** Processes that died mid-sweep, and ones whose master key could not open the secrets. */
  deaths: number;
  wrongKeys: number;
  /** Processes held up past their leases, and attempts started again before an outcome was recorded. */
  stalls: number;
  startedAgain: number;
  /** Deliveries whose run was erased while they were due, and those of them that ended `data_erased`. */
  erasures: number;
  endedErased: number;
  /** What the log holds, in order: each event's stream, type and process (a replay of the seed holds the same). */
  recorded: string[];
  violations: string[];
}

/**
 * One schedule of webhook deliveries, from its seed alone: a few deliveries to receivers that answer
 * as the seed draws them (hostile pages, resets, timeouts), attempted by the real attempt-and-settle
 * code (decider, sender, retry policy, failure memory) under the real leases, by up to three
 * processes at once (each a line of successors: one that dies or retires is replaced). The log is the
 * real PostgreSQL adapter and the leases the real SQL, both on an in-process PostgreSQL
 * (inProcessPostgres.ts); each process's statements fail beneath the adapter as the seed draws them
 * (faultyConnection.ts), and a process may die after any of its appends, stall past its leases between a
 * receiver's answer and its record (another process then starts the attempt again), and some of
 * whose master keys cannot open the secrets. The clock is virtual (virtualClock.ts): when every
 * process waits, it jumps to the next due retry, expiring lease or stalled process's wake. Then the
 * invariants: every delivery ended within the policy's bounds (attempts, starts per attempt),
 * nothing follows an end, every POST follows a start of its own and is signed with the
 * organization's secret, an outcome is recorded only by the attempt's latest start, a worker that
 * cannot open the secrets starts nothing, nothing failed is given back "at once", and without
 * faults exactly one POST per attempt whose recorded outcome is the receiver's answer; the hash
 * chains verify.
 */
export async function simulateDeliveries(seed: number, postgres: InProcessPostgres): Promise<DeliveryScheduleResult> {
  const random = seededRandom(seed);
  const clock = virtualClock(Date.parse('2026-01-01T00:00:00.000Z'), (at) => nextDue(at));
  await postgres.reset(() => clock.now(), ['seqflow_events', 'seqflow_streams', 'run_data_keys', 'delivery_leases', 'webhook_deliveries', 'projection_checkpoints']);
  const now = () => new Date(clock.tick());
  // The real PostgreSQL adapter. Whether another process listens for wake-ups is asked once, not by real time.
  const log = createPostgresEventStore({ pool: postgres.pool(), listenerRecheckMs: Infinity });
  // Bodies are sealed by the real sealing store under their run's key, in a key table every process shares.
  const keyTable = simulatedKeyTable(random);
  const sound = { eventStore: sealingEventStore(log, keyTable.forProcess({ readFault: 0, alive: () => true })), now };
  const setup = { principal: { kind: 'system' as const, id: 'simulation' } };

  const organizations = Array.from({ length: 1 + random.int(2) }, (_, i) => `org-${i}`);
  const secrets = new Map<string, string>();
  for (const organizationId of organizations) {
    await handleCommand(sound, organizationStream(organizationId), organization, { type: 'CreateOrganization', data: { organizationId, slug: organizationId, name: organizationId, initialCredits: 0 } }, setup);
    await getWebhookSecret(sound, organizationId, MASTER_KEY, setup);
    secrets.set(organizationId, (await signingSecrets(sound, organizationId, MASTER_KEY, setup)).current);
  }
  const newId = seededIds(seed);
  const ids = Array.from({ length: 1 + random.int(6) }, () => newId());
  for (const deliveryId of ids) {
    const body = JSON.stringify({ event: 'flow.completed', execution_id: deliveryId, output: 'done' });
    const data = { deliveryId, organizationId: random.pick(organizations), executionId: deliveryId, flowId: 'flow', event: 'flow.completed' as const, url: `https://receiver-${random.int(2)}.example/hook`, body, truncated: false };
    await handleCommand(sound, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data } }, setup);
  }

  // Some schedules erase some deliveries' runs part way: at a sweep drawn here, the run's key goes
  // (what an erasure does after its RunDataErased). Nothing may be POSTed for it after that.
  const planned = random.chance(0.4) ? ids.filter(() => random.chance(0.5)).map((deliveryId) => ({ deliveryId, atSweep: random.int(30) })) : [];
  const erasedAtPosition = new Map<string, number>();
  const eraseDue = async () => {
    for (const erasure of planned.filter((e) => e.atSweep <= sweeps && !erasedAtPosition.has(e.deliveryId))) {
      erasedAtPosition.set(erasure.deliveryId, await log.headPosition());
      keyTable.erase(erasure.deliveryId);
    }
  };
  const revisionOf = async (deliveryId: string) => (await log.streamHeads([deliveryStream(deliveryId)])).get(deliveryStream(deliveryId))?.revision ?? -1;
  const receiver = simulatedReceiver(random, revisionOf);
  // The simulation's own view of the deliveries: through a sealing store of its own (a body erased reads as erased).
  const reader = sound.eventStore;
  const states = async () => new Map<string, DeliveryState>(await Promise.all(ids.map(async (id) => [id, (await loadStream(reader, deliveryStream(id), delivery, { unreadable: 'mark' })).state] as const)));
  const claims = await postgresDeliveryClaims(postgres, { reader, random, leaseMs: LEASE_MS, now: () => clock.now() });
  // The next moment a sweep may find work: a lease running out, or a retry falling due.
  async function nextDue(at: number) {
    // Something became due while the last sweeps read (each record moves the clock on): sweep again now.
    if (await claims.anyClaimable()) return at;
    const due = [...(await states()).values()].flatMap((s) => (s.status === 'failed_retry' && s.nextAttemptAt ? [Date.parse(s.nextAttemptAt)] : []));
    return Math.min(await claims.nextExpiry(), ...due.filter((t) => t > at));
  }
  const rates = random.chance(0.3) ? { appendBeforeCommit: 0, appendAfterCommit: 0, read: 0 } : { appendBeforeCommit: random.next() * 0.1, appendAfterCommit: random.next() * 0.1, read: random.next() * 0.05 };
  // Some schedules have processes that stall past their leases (a long pause between the receiver's answer and its record).
  const stallChance = random.chance(0.3) ? 0.25 : 0;

  let faults = 0;
  let deaths = 0;
  let stalls = 0;
  const wrongKeyWorkers = new Set<string>();
  /** A process: its view of the log (faulty as drawn), its failure memory, its leases; it may die after some appends, and stall. */
  // Retries wait on the virtual clock, with the seed's jitter: a process waiting out its backoff lets the others go on.
  const retryWaits = { random: random.next, sleep: (ms: number) => clock.sleepUntil(clock.now() + ms) };
  // A read lost with its connection is retried after a few turns of the event loop, not on the clock:
  // the adapter reads whole streams for several callers in one query, and the clock cannot tell that
  // they all wait on one retry (it would wait for them for ever).
  const readRetries = loopTurns(random);
  const spawn = (n: number) => {
    const worker = `worker-${n}`;
    // Faults beneath the real adapter: its statements fail as drawn, and it dies after some appends.
    const connection = faultyConnection(postgres, random, rates, random.chance(0.3) ? random.int(12) : Infinity);
    const dead = connection.dead;
    const store = createPostgresEventStore({ pool: connection.pool, readRetries, listenerRecheckMs: Infinity });
    const wrongKey = random.chance(0.15);
    if (wrongKey) wrongKeyWorkers.add(worker);
    const failures = createAttemptFailures({ logger: silent, now: () => clock.now(), random: random.next });
    // The POST is made (and kept by the receiver) before the stall: its answer comes back after the lease ran out.
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const stalled = random.chance(stallChance);
      try {
        return await receiver.fetch(input, init);
      } finally {
        if (stalled) {
          stalls++;
          await clock.sleepUntil(clock.now() + LEASE_MS + 1 + random.int(LEASE_MS));
        }
      }
    };
    // The real sealing store above this process's faulty log, and its faulty view of the key table beneath.
    const sealed = sealingEventStore(store, keyTable.forProcess({ readFault: rates.read, alive: () => !dead() }));
    const deps = {
      commands: { eventStore: sealed, now, retryWaits },
      guard: { fetch } as unknown as AddressGuard,
      masterKey: wrongKey ? WRONG_KEY : MASTER_KEY,
      principal: { kind: 'system' as const, id: `webhook-dispatcher:${worker}` },
      timeoutMs: 20_000,
      tracer: trace.getTracer('simulation'),
    };
    return { worker, failures, deps, claims: claims.forProcess(worker, connection), faults: connection.faults, died: dead };
  };

  let sweeps = 0;
  let exhausted = false;
  /** One process's sweeps until everything ended, it died, or it cannot open the secrets of what is due (then it retires). */
  const sweepUntilDone = async (worker: ReturnType<typeof spawn>) => {
    clock.join();
    try {
      while (!clock.stuck()) {
        if ((exhausted ||= ++sweeps > MAX_SWEEPS)) return 'done';
        await eraseDue();
        const known = await states();
        if ([...known.values()].every((s) => s.status !== 'none' && ENDED.has(s.status))) return 'done';
        const claimed = await worker.claims.claim(worker.failures.skippedOrganizations()).catch(() => undefined);
        if (claimed === undefined) return 'died';
        if (claimed.length === 0 && worker.failures.skippedOrganizations().length > 0) return 'retired';
        if (claimed.length === 0) await clock.idle();
        else await clock.all(claimed.map((id) => () => attemptAndSettle(worker.deps, worker.claims, worker.failures, silent, id, LEASE_MS)));
      }
      return 'done';
    } finally {
      faults += worker.faults();
      if (worker.died()) deaths++;
      clock.leave();
    }
  };
  // Up to three processes at once; one that dies or retires is replaced by the next.
  let spawned = 0;
  const line = async () => {
    while ((await sweepUntilDone(spawn(spawned++))) !== 'done');
  };
  await Promise.all(Array.from({ length: 1 + random.int(3) }, line));

  const violations: string[] = [];
  const open = [...(await states())].filter(([, s]) => !ENDED.has(s.status));
  if (clock.stuck() && open.length > 0) violations.push(`nothing is due, yet ${open.map(([id, s]) => `${id} is ${s.status}`).join(', ')}`);
  if (exhausted) violations.push(`deliveries still open after ${MAX_SWEEPS} sweeps`);

  faults += keyTable.faults();
  const withoutFaults = faults === 0 && deaths === 0 && stalls === 0;
  for (const deliveryId of ids) violations.push(...(await deliveryViolations(reader, deliveryId, receiver.posts, { withoutFaults, wrongKeyWorkers, secrets, erasedAtPosition: erasedAtPosition.get(deliveryId) ?? null })));
  for (const { deliveryId, delayMs } of claims.givenBack) if (!(delayMs > 0)) violations.push(`${deliveryId}: given back after a failure with a delay of ${delayMs} ms (at once)`);
  const verified = await verifyLog(log);
  if (verified.problem) violations.push(`the log does not verify: ${verified.problem.detail}`);
  const logged = await log.readAll(0, 1_000_000);
  const startedAgain = logged.filter((e, i, all) => e.type === 'DeliveryAttemptStarted' && all.slice(0, i).findLast((s) => s.streamId === e.streamId)?.type === 'DeliveryAttemptStarted').length;
  const endedErased = [...(await states()).values()].filter((s) => s.status === 'data_erased').length;
  return { seed, deliveries: ids.length, posts: receiver.posts.length, faults, deaths, wrongKeys: wrongKeyWorkers.size, stalls, startedAgain, erasures: erasedAtPosition.size, endedErased, recorded: logged.map((e) => `${e.streamId} ${e.type} ${e.metadata.principal?.id ?? ''}`), violations };
}

/** What one delivery's stream and its receiver's POSTs must say (see simulateDeliveries). */
async function deliveryViolations(
  log: EventStore,
  deliveryId: string,
  allPosts: ReturnType<typeof simulatedReceiver>['posts'],
  context: { withoutFaults: boolean; wrongKeyWorkers: Set<string>; secrets: Map<string, string>; erasedAtPosition: number | null },
): Promise<string[]> {
  const violations: string[] = [];
  const stream = deliveryStream(deliveryId);
  // Opened, as a reader sees them: the receivers' excerpts are sealed (an erased one reads as erased).
  const events = await log.readStream(stream, { unreadable: 'mark' });
  const say = (what: string) => violations.push(`${stream}: ${what}`);
  const created = events[0]?.data as { organizationId: string };
  const endAt = events.findIndex((e) => e.type === 'DeliveryEnded' || (e.type === 'DeliveryAttemptFinished' && ENDED.has((e.data as { outcome: string }).outcome)));
  if (endAt === -1) say(`never ended (${events.map((e) => e.type).join(', ')})`);
  if (endAt !== -1 && endAt < events.length - 1) say(`${events.slice(endAt + 1).map((e) => e.type).join(', ')} after its end`);

  const starts = events.filter((e) => e.type === 'DeliveryAttemptStarted');
  const attempts = Math.max(0, ...starts.map((e) => (e.data as { attempt: number }).attempt));
  if (attempts > MAX_ATTEMPTS) say(`${attempts} attempts, more than the policy's ${MAX_ATTEMPTS}`);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const made = starts.filter((e) => (e.data as { attempt: number }).attempt === attempt).length;
    if (made > MAX_STARTS_PER_ATTEMPT) say(`attempt ${attempt} started ${made} times, more than ${MAX_STARTS_PER_ATTEMPT}`);
    if (context.withoutFaults && made !== 1) say(`attempt ${attempt} started ${made} times in a schedule without faults`);
  }
  // An outcome is recorded by the process that made the attempt's last start (or by the start cap): a
  // process held up past its lease never records its stale answer over the attempt that took over.
  events.forEach((event, at) => {
    const finished = event.data as { errorExcerpt: string | null; result?: string };
    const byStartCap = finished.errorExcerpt?.startsWith('the attempt was started') || (event.erasedFields?.includes('errorExcerpt') && finished.result === 'internal_error');
    if (event.type !== 'DeliveryAttemptFinished' || byStartCap) return;
    const lastStart = events.slice(0, at).findLast((e) => e.type === 'DeliveryAttemptStarted');
    if (lastStart?.metadata.principal?.id !== event.metadata.principal?.id) say(`an outcome recorded by ${event.metadata.principal?.id} after ${lastStart?.metadata.principal?.id ?? 'nobody'} started the attempt`);
  });
  for (const start of starts) {
    const worker = start.metadata.principal?.id.replace('webhook-dispatcher:', '') ?? '';
    if (context.wrongKeyWorkers.has(worker)) say(`attempt started by ${worker}, whose master key cannot open the secrets`);
  }

  const posts = allPosts.filter((p) => p.deliveryId === deliveryId);
  const byStart = new Map<number, number>();
  for (const post of posts) {
    if (events[post.revision]?.type !== 'DeliveryAttemptStarted') say(`a POST after ${events[post.revision]?.type ?? 'nothing'}, not after a start of its own`);
    byStart.set(post.revision, (byStart.get(post.revision) ?? 0) + 1);
    if (post.signature.split(',')[1] !== `v1=${computeSignature(context.secrets.get(created.organizationId)!, post.timestamp, post.body)}`) say('a POST not signed with its organization secret');
  }
  // A POST for an attempt started after the run's key was erased would send an empty body under a valid signature.
  const erasedAt = context.erasedAtPosition;
  if (erasedAt !== null) for (const post of posts) if ((events[post.revision]?.position ?? 0) > erasedAt) say(`a POST for an attempt started after its run was erased (revision ${post.revision})`);
  for (const [revision, count] of byStart) if (count > 1) say(`${count} POSTs for the start at revision ${revision}`);
  if (context.withoutFaults) {
    const finishes = events.filter((e) => e.type === 'DeliveryAttemptFinished').map((e) => e.data as { responseStatus: number | null; result?: string });
    const answers = posts.map((p) => (typeof p.status === 'number' ? `response ${p.status}` : p.status));
    const recorded = finishes.map((f) => (f.result === 'response' ? `response ${f.responseStatus}` : (f.result ?? '')));
    if (answers.join() !== recorded.join()) say(`recorded [${recorded.join(', ')}] for the receiver's answers [${answers.join(', ')}]`);
  }
  return violations;
}
