import { CronExpressionParser } from 'cron-parser';
import { ApiError } from '../errors/apiError.ts';

/**
 * When a schedule fires: a cron expression read by cron-parser (five fields, or six with seconds
 * first; names, ranges, steps, `L`, `#`, `H`) in an IANA time zone, daylight saving included (a
 * local time that does not exist that day fires at the next one that does; one that exists twice,
 * once). Pure: every answer is computed from the times passed in, never from a clock. `H` is seeded
 * with the schedule's id, so every process computes the same times for it.
 */
export interface CronSchedule {
  cron: string;
  timezone: string;
  /** The seed of `H` fields: the schedule's id. */
  seed: string;
}

/** The longest cron expression accepted. */
export const MAX_CRON_LENGTH = 200;

/** Refuses an expression or a time zone that cannot be read, naming which and why (VALIDATION_FAILED). */
export function checkCronSchedule(schedule: CronSchedule): void {
  if (!isTimeZone(schedule.timezone)) throw new ApiError('VALIDATION_FAILED', `timezone: '${schedule.timezone}' is not an IANA time zone (like UTC or Europe/Paris)`);
  if (schedule.cron.length === 0 || schedule.cron.length > MAX_CRON_LENGTH) throw new ApiError('VALIDATION_FAILED', `cron: an expression of 1 to ${MAX_CRON_LENGTH} characters, like "0 7 * * *"`);
  try {
    expression(schedule, new Date(0)).next();
  } catch (error) {
    throw new ApiError('VALIDATION_FAILED', `cron: "${schedule.cron}" cannot be read (${error instanceof Error ? error.message : String(error)}); five fields (minute hour day-of-month month day-of-week), or six with seconds first`);
  }
}

/** The first firing strictly after `after`, or null when the expression has none (it never matches again). */
export function nextFiring(schedule: CronSchedule, after: Date): Date | null {
  try {
    return expression(schedule, after).next().toDate();
  } catch {
    return null;
  }
}

/**
 * The firings in (after, until], oldest first, at most `limit` of them; `more` says whether there
 * were others after the last one listed (still within `until`).
 */
export function firingsBetween(schedule: CronSchedule, after: Date, until: Date, limit: number): { times: Date[]; more: boolean } {
  const times: Date[] = [];
  const iterator = expression(schedule, after);
  for (;;) {
    let next: Date;
    try {
      next = iterator.next().toDate();
    } catch {
      return { times, more: false };
    }
    if (next.getTime() > until.getTime()) return { times, more: false };
    if (times.length === limit) return { times, more: true };
    times.push(next);
  }
}

/** The last `limit` firings in (after, at], oldest first. */
export function firingsUpTo(schedule: CronSchedule, after: Date, at: Date, limit: number): Date[] {
  const times: Date[] = [];
  const iterator = expression(schedule, new Date(at.getTime() + 1));
  while (times.length < limit) {
    let previous: Date;
    try {
      previous = iterator.prev().toDate();
    } catch {
      break;
    }
    if (previous.getTime() <= after.getTime()) break;
    times.push(previous);
  }
  return times.reverse();
}

const expression = (schedule: CronSchedule, currentDate: Date) => CronExpressionParser.parse(schedule.cron, { currentDate, tz: schedule.timezone, hashSeed: schedule.seed });

function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
