import { describe, expect, it } from 'vitest';
import { countFindings, watchdogFindings } from '../../src/domain/watchdog/watchdogFindings.ts';

const bounds = { silentRunMs: 60_000, jobMaxClaims: 5, deliveryMaxClaims: 24, projectionMaxBehind: 100, scheduleOverdueMs: 60_000 };
const now = new Date('2026-01-01T01:00:00.000Z');
const none = { runs: [], jobs: [], deliveries: [], projections: [], schedules: [] };

describe('what the watchdog reports', () => {
  it('a running run whose last event is older than the bound, saying when its lease is still renewed', () => {
    const runs = [
      { executionId: 'quiet', status: 'running', createdAt: '2026-01-01T00:00:00.000Z', lastEventAt: '2026-01-01T00:58:00.000Z', leaseHeld: true },
      { executionId: 'fresh', status: 'running', createdAt: '2026-01-01T00:00:00.000Z', lastEventAt: '2026-01-01T00:59:30.000Z', leaseHeld: true },
      { executionId: 'never', status: 'retrying', createdAt: '2026-01-01T00:30:00.000Z', lastEventAt: null, leaseHeld: false },
    ];
    expect(watchdogFindings({ ...none, runs }, bounds, now)).toEqual([
      { kind: 'silent_run', id: 'quiet', detail: 'running with no event for 120 s (bound 60 s); its lease is still renewed' },
      { kind: 'silent_run', id: 'never', detail: 'retrying with no event for 1800 s (bound 60 s)' },
    ]);
  });

  it('jobs and deliveries past their claim caps, and projections stalled or behind', () => {
    const findings = watchdogFindings(
      {
        runs: [],
        jobs: [{ executionId: 'j1', claims: 6, status: 'running' }, { executionId: 'j2', claims: 5, status: 'running' }],
        deliveries: [{ deliveryId: 'd1', claims: 25, status: 'in_flight' }, { deliveryId: 'd2', claims: 24, status: 'pending' }],
        projections: [{ name: 'runs', behind: 101, stalled: null }, { name: 'jobs', behind: 0, stalled: { eventType: 'JobClaimed' } }, { name: 'flows', behind: 100, stalled: null }],
        schedules: [],
      },
      bounds,
      now,
    );
    expect(findings.map((f) => `${f.kind}:${f.id}`)).toEqual(['job_over_claims:j1', 'delivery_over_claims:d1', 'projection_behind:runs', 'projection_behind:jobs']);
    expect(countFindings(findings)).toEqual({ silent_run: 0, job_over_claims: 1, delivery_over_claims: 1, projection_behind: 2, schedule_overdue: 0 });
  });

  it('a schedule whose next firing is later than the bound: no worker fired it', () => {
    const schedules = [
      { scheduleId: 'stuck', nextFiringAt: '2026-01-01T00:58:00.000Z' },
      { scheduleId: 'due', nextFiringAt: '2026-01-01T00:59:30.000Z' },
    ];
    expect(watchdogFindings({ ...none, schedules }, bounds, now)).toEqual([
      { kind: 'schedule_overdue', id: 'stuck', detail: 'its firing of 2026-01-01T00:58:00.000Z is 120 s late (bound 60 s): no worker fired it' },
    ]);
  });
});
