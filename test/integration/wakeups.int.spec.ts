import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wakeups } from '../../src/eventstore/postgres/wakeups.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
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

  it('let a caught-up subscriber read the log once per append: a short batch is all there was, and nothing is read again to find that out', async () => {
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = args[0];
      if (typeof text === 'string') sent.push(text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    // No poll within the test: the subscriber reads when woken, or when events wait behind an append.
    const store = createPostgresEventStore({ pool, connectionString: database.url, timing: { pollIntervalMs: 600_000 } });
    const handled: string[] = [];
    try {
      await store.migrate();
      const subscription = store.subscribe({ from: 0, handler: async (events) => void handled.push(...events.map((e) => e.id)) });
      await subscription.started;
      const reads = () => sent.filter((text) => text.includes('seqflow_read_after')).length;
      const checks = () => sent.filter((text) => text.includes('SELECT EXISTS')).length;
      // Its first cycle (from position 0: read, nothing there, check) is over before counting starts.
      await until(() => checks() > 0, 'the subscriber to catch up');
      const before = reads();
      const appends = 5;
      for (let i = 0; i < appends; i++) {
        const id = randomUUID();
        const checked = checks();
        await store.append(`wakeups-${i}`, [{ id, type: 'Noted', schemaVersion: 1, data: { i }, metadata: { correlationId: id, causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt: new Date().toISOString() } }], 'no_stream');
        // Handled, and the subscriber has checked for events behind an append, which ends its cycle.
        await until(() => handled.includes(id) && checks() > checked, `append ${i} to be handled`);
      }
      // One read per append, and at most one more for the wake-up the LISTEN connection gives when it comes up.
      expect(reads() - before).toBeLessThanOrEqual(appends + 1);
      await subscription.stop();
    } finally {
      pg.Client.prototype.query = query;
      await store.close();
      await pool.end();
    }
  });
});
