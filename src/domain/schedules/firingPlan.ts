import { type CronSchedule, firingsBetween, firingsUpTo } from './cronTimes.ts';
import type { ScheduleState } from './schedule.ts';

export interface FiringRules {
  /** A firing found more than this long after its time was missed (no worker ran then). */
  missedAfterMs: number;
  /** The most missed firings one catch-up runs under the `run` policy; older ones are skipped (`too_many`). */
  maxCatchUp: number;
}

export interface FiringPlan {
  skip: { first: string; last: string; count: number | null; reason: 'missed' | 'too_many' } | null;
  /** Oldest first. */
  fire: { scheduledFor: string; late: boolean }[];
}

/** Due firings are counted up to this many; past it, a skip records `count` null. */
const COUNT_LIMIT = 10_000;

type Active = Exclude<ScheduleState, { status: 'none' }>;

/**
 * What a schedule owes at `now` (the database's clock): the firings after those accounted for, up
 * to now. Those within `missedAfterMs` of their time fire; older ones were missed while nothing ran,
 * and are run (late, the newest `maxCatchUp` of them, older ones skipped) or skipped, by the
 * schedule's policy. Pure; the same state and time give the same plan in every process.
 */
export function firingPlan(state: Active, now: Date, rules: FiringRules): FiringPlan {
  const cron: CronSchedule = { cron: state.cron, timezone: state.timezone, seed: state.scheduleId };
  const after = new Date(state.after);
  const lateBefore = now.getTime() - rules.missedAfterMs;
  const due = firingsBetween(cron, after, now, COUNT_LIMIT);
  const onTime = (due.more ? firingsBetween(cron, new Date(Math.max(after.getTime(), lateBefore - 1)), now, COUNT_LIMIT).times : due.times).filter((t) => t.getTime() >= lateBefore);
  const fireOnTime = onTime.map((t) => ({ scheduledFor: t.toISOString(), late: false }));
  const missedCount = due.more ? null : due.times.length - onTime.length;
  if (missedCount === 0) return { skip: null, fire: fireOnTime };

  const lastMissedBy = new Date(lateBefore - 1);
  const first = due.times[0]!.toISOString();
  if (state.missed === 'skip') {
    const last = firingsUpTo(cron, after, lastMissedBy, 1)[0]!.toISOString();
    return { skip: { first, last, count: missedCount, reason: 'missed' }, fire: fireOnTime };
  }
  const kept = firingsUpTo(cron, after, lastMissedBy, rules.maxCatchUp);
  const late = kept.map((t) => ({ scheduledFor: t.toISOString(), late: true }));
  if (missedCount !== null && missedCount <= rules.maxCatchUp) return { skip: null, fire: [...late, ...fireOnTime] };
  const lastSkipped = firingsUpTo(cron, after, new Date(kept[0]!.getTime() - 1), 1)[0]!.toISOString();
  return { skip: { first, last: lastSkipped, count: missedCount === null ? null : missedCount - kept.length, reason: 'too_many' }, fire: [...late, ...fireOnTime] };
}
