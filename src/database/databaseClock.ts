import { type Kysely, sql } from 'kysely';

/**
 * The database's clock, read from this process: the offset between the two is measured (the middle
 * of a `SELECT clock_timestamp()` round trip) and applied to the process's clock. Times that the
 * database later compares with its own `now()` (a delivery's next attempt, which a sweep claims when
 * `next_attempt_at <= now()`) are taken from here, so a process whose clock jumps (an NTP step, a
 * VM resumed) schedules nothing hours early or late. Until the first measure the offset is 0.
 */
export function createDatabaseClock<DB>(db: Kysely<DB>, local: () => number = Date.now) {
  let offsetMs = 0;
  return {
    now: (): Date => new Date(local() + offsetMs),
    /** Measures the offset again (a sweep does, each tick); a failed read keeps the last one. */
    async refresh(): Promise<void> {
      const sent = local();
      const { rows } = await sql<{ at: Date }>`SELECT clock_timestamp() AS at`.execute(db);
      const received = local();
      const at = rows[0]?.at;
      if (at) offsetMs = new Date(at).getTime() - (sent + received) / 2;
    },
  };
}
