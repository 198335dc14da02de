import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparingClient } from '../../src/database/preparedStatements.ts';
import type { EventToAppend } from '../../src/eventstore/eventStore.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { migrateEventLog } from '../../src/eventstore/postgres/migrateEventLog.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

const event = (n: number): EventToAppend => ({
  id: randomUUID(),
  type: 'Noted',
  schemaVersion: 1,
  data: { n },
  metadata: { correlationId: randomUUID(), causationId: null, principal: { kind: 'system', id: 'named-appends-test' }, occurredAt: new Date().toISOString() },
});

/**
 * An append's statement is parsed and planned once per connection where the pool's connections are
 * the server's own sessions (named), and never named behind a transaction pooler, which would hand
 * the next transaction a session that never saw it (docs/running.md: PgBouncer).
 */
describe('PostgreSQL event log: appends prepared once per connection', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('named_appends');
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    await migrateEventLog(pool);
    await pool.end();
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** Appends alone and in batches, durable and not, on a pool of one session; the statements that session holds prepared. */
  const preparedAfterAppends = async (serversOwnSessions: boolean) => {
    const pool = new pg.Pool({ connectionString: database.url, max: 1, ...(serversOwnSessions ? { Client: preparingClient() } : {}) });
    pool.on('error', () => undefined);
    const store = createPostgresEventStore({ pool, connectionString: database.url, groupCommit: { maxInFlight: 1 } });
    try {
      const streams = Array.from({ length: 6 }, () => `named-${randomUUID()}`);
      // The first goes alone; the others wait for it and go together as one batch.
      await Promise.all(streams.map((s, i) => store.append(s, [event(i)], 'no_stream', i % 2 === 0 ? { durability: 'deferred' } : {})));
      await store.append(streams[0]!, [event(9)], 0);
      const read = await store.readStream(streams[0]!);
      expect(read.map((e) => (e.data as { n: number }).n)).toEqual([0, 9]);
      const { rows } = await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement');
      // Each variant by what its text calls: the batch or the single append, with or without the commit that skips the disk.
      return rows.map(({ statement }) => `${/seqflow_append_batch\(/.test(statement) ? 'batch' : /seqflow_append\(/.test(statement) ? 'single' : 'other'}_${statement.includes("set_config('synchronous_commit'") ? 'deferred' : 'durable'}`);
    } finally {
      await store.close();
      await pool.end();
    }
  };

  it('names them where the pool is the server itself: later appends on that session only bind and run', async () => {
    expect(await preparedAfterAppends(true)).toEqual(expect.arrayContaining(['batch_durable', 'single_deferred', 'single_durable']));
  });

  it('leaves them unnamed behind a transaction pooler', async () => {
    expect((await preparedAfterAppends(false)).filter((variant) => !variant.startsWith('other_'))).toEqual([]);
  });
});
