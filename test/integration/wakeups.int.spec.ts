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
});
