import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner } from '../../src/workers/jobRunner.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * A runner told to stop while its claim waits on the database stops when the claim returns, not at
 * its next poll: the poll here is ten minutes, so a stop that waited for it would time the test out.
 */
describe('a job runner stopped while its claim is in flight', () => {
  let t: TestRuntime;

  beforeAll(async () => {
    t = await createTestRuntime('runner_stop');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('ends its loop as soon as the claim returns, whatever its poll interval', async () => {
    const holder = new pg.Client({ connectionString: t.database.url });
    holder.on('error', () => undefined);
    await holder.connect();
    try {
      // Another session holds the lease table: the runner's first claim waits on that lock.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE job_leases IN ACCESS EXCLUSIVE MODE');
      const runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 5000, concurrency: 1, workerId: 'stopping', pollMs: 600_000 });
      const task = runner.start();
      await until(async () => {
        const { rows } = await sql<{ waiting: number }>`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(t.runtime.db);
        return rows[0]!.waiting > 0;
      }, 'the runner claim to wait on the lock');

      const stopped = task.stop();
      await holder.query('COMMIT');
      await stopped;
      await expect(task.done).resolves.toBeUndefined();
    } finally {
      await holder.end();
    }
  });
});
