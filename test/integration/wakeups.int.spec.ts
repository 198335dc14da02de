import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wakeups } from '../../src/eventstore/postgres/wakeups.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { until } from '../support/until.ts';

describe('wake-ups after an append', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('wakeups');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("wake this process's subscribers once, at the commit, and another process's through NOTIFY", async () => {
    // Every NOTIFY a LISTEN connection hears, seen before the connection's own handler runs.
    const heard: string[] = [];
    const emit = pg.Client.prototype.emit;
    pg.Client.prototype.emit = function (this: pg.Client, event: string | symbol, ...args: unknown[]) {
      if (event === 'notification') heard.push((args[0] as pg.Notification).payload ?? '');
      return emit.call(this, event, ...args);
    };
    const pools = [new pg.Pool({ connectionString: database.url, max: 2 }), new pg.Pool({ connectionString: database.url, max: 2 })];
    const [here, there] = pools.map((pool) => new Wakeups(pool, database.url, {}));
    const woken = { here: 0, there: 0 };
    here!.add(() => woken.here++);
    there!.add(() => woken.there++);
    try {
      // Each LISTEN connection wakes its subscribers once when it is up.
      await until(() => woken.here > 0 && woken.there > 0, 'both LISTEN connections');
      woken.here = 0;
      woken.there = 0;

      here!.committed();
      expect(woken.here).toBe(1);
      // Both LISTEN connections, this process's own included, have heard its NOTIFY.
      await until(() => heard.length === 2, 'the NOTIFY to reach both LISTEN connections');
      expect(woken).toEqual({ here: 1, there: 1 });
    } finally {
      pg.Client.prototype.emit = emit;
      await Promise.all([here!.close(), there!.close()]);
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('sends no NOTIFY while no other process listens, one once another does, and none again after it has gone', async () => {
    const pools = [new pg.Pool({ connectionString: database.url, max: 2 }), new pg.Pool({ connectionString: database.url, max: 2 })];
    const notifies: string[] = [];
    const query = pools[0]!.query.bind(pools[0]!) as (...args: unknown[]) => Promise<unknown>;
    pools[0]!.query = ((...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('pg_notify')) notifies.push(args[0]);
      return query(...args);
    }) as pg.Pool['query'];
    // Looked up at every commit: the test sees each change of who listens at the next commit.
    const here = new Wakeups(pools[0]!, database.url, {}, 0);
    let there: Wakeups | undefined;
    const woken = { here: 0, there: 0 };
    here.add(() => woken.here++);
    try {
      await until(() => woken.here > 0, "this process's LISTEN connection");
      // Only this process listens: its subscribers are woken at the commit, and nobody else needs telling.
      await here.committed();
      await here.committed();
      expect(notifies).toEqual([]);

      there = new Wakeups(pools[1]!, database.url, {});
      there.add(() => woken.there++);
      await until(() => woken.there > 0, "the other process's LISTEN connection");
      woken.there = 0;
      await here.committed();
      expect(notifies).toHaveLength(1);
      await until(() => woken.there === 1, 'the other process to be woken');

      await there.close();
      there = undefined;
      // Its session ends a moment after its connection is closed; from then on nobody is told.
      await until(async () => {
        const before = notifies.length;
        await here.committed();
        return notifies.length === before;
      }, 'commits that tell nobody once the other process has gone');
    } finally {
      await Promise.all([here.close(), there?.close()]);
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
