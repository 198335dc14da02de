import pg from 'pg';

/**
 * Counts the statements every `pg` client of this process sends while counting is on, by their
 * first 80 characters: how many round trips a run costs. Bench only: it wraps the driver's
 * prototype for the measured window and puts it back.
 */
export function countQueries() {
  const counts = new Map<string, number>();
  const original = pg.Client.prototype.query;
  const counted = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; name?: string } | undefined;
    const text = typeof first === 'string' ? first : (first?.text ?? first?.name ?? '(unnamed)');
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 80);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  };
  pg.Client.prototype.query = counted as typeof original;
  return {
    stop(runs: number) {
      pg.Client.prototype.query = original;
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      return { perRun: Number((total / runs).toFixed(2)), statements: [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([statement, n]) => ({ perRun: Number((n / runs).toFixed(2)), statement })) };
    },
  };
}

/**
 * `run`'s result and the statements this process's `pg` clients sent while it ran, per unit of its
 * work (a run, a job, a delivery): issue 41 asks the bench for them beside each figure.
 */
export async function statementsDuring<T>(units: number, run: () => Promise<T>): Promise<{ result: T; perUnit: number }> {
  const counter = countQueries();
  try {
    const result = await run();
    return { result, perUnit: counter.stop(units).perRun };
  } catch (error) {
    counter.stop(units);
    throw error;
  }
}
