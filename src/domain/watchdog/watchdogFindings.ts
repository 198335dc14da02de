/**
 * The service's own promises, checked: what the watchdog reports is work that should have moved and
 * did not. Pure: the shell gathers the candidates (read models, the log's last events, projection
 * status) and the time; this decides which are findings.
 * - `silent_run`: a run the read model shows running (or retrying) whose last event is older than
 *   the bound: nothing is recording for it, whoever holds it (a held, renewed lease included).
 * - `job_over_claims`: a job claimed more often than its cap that has not ended (the claimant past
 *   the cap should have ended it JOB_ABANDONED).
 * - `delivery_over_claims`: a delivery claimed more often than its attempts can explain that has not
 *   ended (the decider's start cap should have ended it).
 * - `projection_behind`: a projection stalled, or further behind the log than the bound.
 * - `schedule_overdue`: an active schedule whose next firing is older than the bound: no worker
 *   fired it (none runs, or their sweeps fail); its firings are being missed.
 */
export type FindingKind = 'silent_run' | 'job_over_claims' | 'delivery_over_claims' | 'projection_behind' | 'schedule_overdue';
export const FINDING_KINDS: readonly FindingKind[] = ['silent_run', 'job_over_claims', 'delivery_over_claims', 'projection_behind', 'schedule_overdue'];

export interface Finding {
  kind: FindingKind;
  /** The run's execution id, the delivery's id, the projection's name. */
  id: string;
  detail: string;
}

export interface WatchdogBounds {
  /** A running run with no event for longer than this is silent. */
  silentRunMs: number;
  /** A job's claim cap (SEQFLOW_JOB_MAX_CLAIMS). */
  jobMaxClaims: number;
  /** Claims a delivery may take: its attempts, each started at most a few times, with room to spare. */
  deliveryMaxClaims: number;
  /** Events a projection may be behind the log. */
  projectionMaxBehind: number;
  /** How long after its time a schedule's firing may still be waiting (a firing this late is missed). */
  scheduleOverdueMs: number;
}

export interface WatchdogInputs {
  runs: { executionId: string; status: string; lastEventAt: string | null; createdAt: string; leaseHeld: boolean }[];
  jobs: { executionId: string; claims: number; status: string }[];
  deliveries: { deliveryId: string; claims: number; status: string }[];
  projections: { name: string; behind: number; stalled: { eventType: string; since?: string } | null }[];
  schedules: { scheduleId: string; nextFiringAt: string }[];
}

export function watchdogFindings(inputs: WatchdogInputs, bounds: WatchdogBounds, now: Date): Finding[] {
  const findings: Finding[] = [];
  for (const run of inputs.runs) {
    const last = Date.parse(run.lastEventAt ?? run.createdAt);
    const silentMs = now.getTime() - last;
    if (silentMs <= bounds.silentRunMs) continue;
    const lease = run.leaseHeld ? '; its lease is still renewed' : '';
    findings.push({ kind: 'silent_run', id: run.executionId, detail: `${run.status} with no event for ${Math.round(silentMs / 1000)} s (bound ${Math.round(bounds.silentRunMs / 1000)} s)${lease}` });
  }
  for (const job of inputs.jobs) {
    if (job.claims > bounds.jobMaxClaims) findings.push({ kind: 'job_over_claims', id: job.executionId, detail: `${job.status} after ${job.claims} claims (cap ${bounds.jobMaxClaims})` });
  }
  for (const delivery of inputs.deliveries) {
    if (delivery.claims > bounds.deliveryMaxClaims) findings.push({ kind: 'delivery_over_claims', id: delivery.deliveryId, detail: `${delivery.status} after ${delivery.claims} claims (cap ${bounds.deliveryMaxClaims})` });
  }
  for (const projection of inputs.projections) {
    if (projection.stalled) findings.push({ kind: 'projection_behind', id: projection.name, detail: `stalled at ${projection.stalled.eventType}` });
    else if (projection.behind > bounds.projectionMaxBehind) findings.push({ kind: 'projection_behind', id: projection.name, detail: `${projection.behind} events behind the log (bound ${bounds.projectionMaxBehind})` });
  }
  for (const schedule of inputs.schedules) {
    const lateMs = now.getTime() - Date.parse(schedule.nextFiringAt);
    if (lateMs > bounds.scheduleOverdueMs) findings.push({ kind: 'schedule_overdue', id: schedule.scheduleId, detail: `its firing of ${schedule.nextFiringAt} is ${Math.round(lateMs / 1000)} s late (bound ${Math.round(bounds.scheduleOverdueMs / 1000)} s): no worker fired it` });
  }
  return findings;
}

/** Findings counted by kind, every kind present (0 when none): what /health and the metrics show. */
export function countFindings(findings: Finding[]): Record<FindingKind, number> {
  const counts = Object.fromEntries(FINDING_KINDS.map((kind) => [kind, 0])) as Record<FindingKind, number>;
  for (const finding of findings) counts[finding.kind]++;
  return counts;
}
