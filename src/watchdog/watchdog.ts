import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { MAX_STARTS_PER_ATTEMPT } from '../domain/webhooks/delivery.ts';
import { MAX_ATTEMPTS } from '../domain/webhooks/retryPolicy.ts';
import { type Finding, type FindingKind, type WatchdogBounds, countFindings, watchdogFindings } from '../domain/watchdog/watchdogFindings.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { lastEventsOf } from '../eventstore/streams.ts';
import type { ProjectionStatus } from '../projections/projectionCheckpoints.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { periodicTask } from '../supervision/periodicTask.ts';

/** Candidates looked at per check and kind: a flood shows as this many, and the count says "at least". */
const CANDIDATES = 200;
/** Pages of running runs one check walks (at CANDIDATES each); a longer list is walked on over the next checks. */
const RUN_PAGES_PER_CHECK = 10;

export interface WatchdogReport {
  checkedAt: string;
  counts: Record<FindingKind, number>;
  findings: Finding[];
}

export interface WatchdogDependencies {
  db: Kysely<ReadModels>;
  eventStore: Pick<EventStore, 'readStream' | 'streamHeads'>;
  projections: { status(): Promise<ProjectionStatus[]> };
  logger: Pick<Logger, 'warn'>;
  now?: () => Date;
  bounds: Omit<WatchdogBounds, 'deliveryMaxClaims'> & { deliveryMaxClaims?: number };
  /** Running runs read per page of the silent-run walk (CANDIDATES unless given). */
  runPage?: number;
}

/**
 * Checks the service's promises (src/domain/watchdog/watchdogFindings.ts) against the read models,
 * the log's last events and the projections; keeps the last report for /health, the metrics and the
 * console, and `seqflow doctor` runs one check. Read-only.
 */
export function createWatchdog(deps: WatchdogDependencies) {
  const now = deps.now ?? (() => new Date());
  const bounds: WatchdogBounds = { deliveryMaxClaims: MAX_ATTEMPTS * MAX_STARTS_PER_ATTEMPT + MAX_ATTEMPTS, ...deps.bounds };
  let last: WatchdogReport | undefined;

  const runPage = deps.runPage ?? CANDIDATES;
  // Where the walk over running runs goes on from (null: from the oldest): kept across checks.
  let runCursor: { createdAt: Date; executionId: string } | null = null;

  /**
   * Running runs older than the bound, every one of them, whatever their age: a keyset walk in
   * creation order, RUN_PAGES_PER_CHECK pages a check, going on from where the last check stopped and
   * starting over once it reached the newest. The oldest page alone missed a newer silent run behind
   * 200 older ones that were still moving.
   */
  async function runsToCheck(before: Date) {
    const found: { execution_id: string; status: string; created_at: Date; lease_held: boolean }[] = [];
    for (let page = 0; page < RUN_PAGES_PER_CHECK; page++) {
      const after = runCursor;
      const rows = await deps.db
        .selectFrom('runs')
        .leftJoin('job_leases', 'job_leases.execution_id', 'runs.execution_id')
        .select(['runs.execution_id', 'runs.status', 'runs.created_at', sql<boolean>`coalesce(job_leases.done_at IS NULL AND job_leases.expires_at > now(), false)`.as('lease_held')])
        .where('runs.status', 'in', ['running', 'retrying'])
        .where('runs.created_at', '<', before)
        .$if(after !== null, (q) => q.where(sql<boolean>`(runs.created_at, runs.execution_id) > (${after!.createdAt}, ${after!.executionId})`))
        .orderBy('runs.created_at')
        .orderBy('runs.execution_id')
        .limit(runPage)
        .execute();
      found.push(...rows.map((r) => ({ ...r, created_at: new Date(r.created_at) })));
      const lastRow = rows.at(-1);
      runCursor = rows.length < runPage || !lastRow ? null : { createdAt: new Date(lastRow.created_at), executionId: lastRow.execution_id };
      if (runCursor === null) break;
    }
    return found;
  }

  async function silentRunCandidates(at: Date) {
    const rows = await runsToCheck(new Date(at.getTime() - bounds.silentRunMs));
    const last = await lastEventsOf(deps.eventStore, rows.map((r) => executionStream(r.execution_id)));
    return rows.map((row) => {
      const lastEvent = last.get(executionStream(row.execution_id));
      return { executionId: row.execution_id, status: row.status, createdAt: new Date(row.created_at).toISOString(), lastEventAt: lastEvent ? lastEvent.recordedAt.toISOString() : null, leaseHeld: Boolean(row.lease_held) };
    });
  }

  async function check(): Promise<WatchdogReport> {
    const at = now();
    const [runs, jobs, deliveries, projections, schedules] = await Promise.all([
      silentRunCandidates(at),
      deps.db.selectFrom('jobs').select(['execution_id', 'claims', 'status']).where('claims', '>', bounds.jobMaxClaims).where('status', 'not in', ['completed', 'failed']).limit(CANDIDATES).execute(),
      deps.db
        .selectFrom('delivery_leases')
        .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'delivery_leases.delivery_id')
        .select(['delivery_leases.delivery_id', 'delivery_leases.claims', 'webhook_deliveries.status'])
        .where('delivery_leases.claims', '>', bounds.deliveryMaxClaims)
        .where('webhook_deliveries.status', 'in', ['pending', 'in_flight', 'failed_retry'])
        .limit(CANDIDATES)
        .execute(),
      deps.projections.status(),
      deps.db
        .selectFrom('schedules')
        .select(['id', 'next_firing_at'])
        .where('status', '=', 'active')
        .where('next_firing_at', '<', new Date(at.getTime() - bounds.scheduleOverdueMs))
        .orderBy('next_firing_at')
        .limit(CANDIDATES)
        .execute(),
    ]);
    const findings = watchdogFindings(
      {
        runs,
        jobs: jobs.map((j) => ({ executionId: j.execution_id, claims: j.claims, status: j.status })),
        deliveries: deliveries.map((d) => ({ deliveryId: d.delivery_id, claims: d.claims, status: d.status })),
        projections,
        schedules: schedules.map((row) => ({ scheduleId: row.id, nextFiringAt: row.next_firing_at!.toISOString() })),
      },
      bounds,
      at,
    );
    last = { checkedAt: at.toISOString(), counts: countFindings(findings), findings };
    if (findings.length > 0) deps.logger.warn({ counts: last.counts, findings: findings.slice(0, 20) }, 'the watchdog found work that should have moved and did not');
    return last;
  }

  return {
    check,
    /** The last check's report; undefined before the first. */
    last: () => last,
    /** Checks every `intervalMs` (the first at once): a task for the supervisor. */
    start: (intervalMs: number) => periodicTask(intervalMs, async () => void (await check())),
  };
}

export type Watchdog = ReturnType<typeof createWatchdog>;
