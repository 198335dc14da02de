import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendToStream } from '../../src/eventstore/postgres/appendToStream.ts';
import { migrateEventLog } from '../../src/eventstore/postgres/migrateEventLog.ts';
import { EVENTS_AFTER_CURSOR, WHOLE_STREAMS, readStreams } from '../../src/eventstore/postgres/readEvents.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/**
 * What PostgreSQL does with the statements a caught-up subscriber sends after every batch, on a log
 * it has never analyzed (as after a restore, or while a young log grows faster than autovacuum
 * looks): each must be a probe of an index, never a scan of the whole log.
 */
describe("a subscriber's look past its cursor, and whole streams read together", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let head: { transactionId: string; position: number };

  beforeAll(async () => {
    database = await createTestDatabase('log_read_plans');
    pool = new pg.Pool({ connectionString: database.url });
    pool.on('error', () => undefined); // dropping the database at the end terminates idle connections: not news
    await migrateEventLog(pool);
    const metadata = { correlationId: randomUUID(), causationId: null, principal: { kind: 'system' as const, id: 'test' }, occurredAt: new Date().toISOString() };
    for (let stream = 0; stream < 40; stream++) {
      const events = Array.from({ length: 50 }, (_, n) => ({ id: randomUUID(), type: 'Noted', schemaVersion: 1, data: { n, text: 'x'.repeat(200) }, metadata }));
      await appendToStream(pool, `plan-${stream}`, events, 'no_stream');
    }
    const { rows } = await pool.query<{ transaction_id: string; global_position: string }>(
      'SELECT transaction_id::text AS transaction_id, global_position FROM seqflow_events ORDER BY transaction_id DESC, global_position DESC LIMIT 1',
    );
    head = { transactionId: rows[0]!.transaction_id, position: Number(rows[0]!.global_position) };
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('answers whether anything is after a cursor: nothing at the head, something before it', async () => {
    expect((await pool.query(EVENTS_AFTER_CURSOR, [head.transactionId, head.position])).rows).toEqual([]);
    expect((await pool.query(EVENTS_AFTER_CURSOR, [head.transactionId, head.position - 1])).rows).toEqual([{ pending: true }]);
    expect((await pool.query(EVENTS_AFTER_CURSOR, ['0', 0])).rows).toEqual([{ pending: true }]);
  });

  const planOfStatement = async (statement: string, params: unknown[]) => {
    const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${statement}`, params);
    return nodes(rows[0]!['QUERY PLAN'][0].Plan);
  };

  it('reads whole streams together by their key, never the whole log, before any ANALYZE', async () => {
    const streams = await readStreams(pool, ['plan-3', 'plan-7', 'none']);
    expect([...streams.keys()]).toEqual(['plan-3', 'plan-7']);
    for (const events of streams.values()) expect(events.map((event) => event.revision)).toEqual(Array.from({ length: 50 }, (_, revision) => revision));
    const plan = await planOfStatement(WHOLE_STREAMS, [['plan-3', 'plan-7']]);
    expect(plan.map((node) => node['Node Type'])).not.toContain('Seq Scan');
  });

  it('finds it by the log-order index, without reading the log, before any ANALYZE and after one', async () => {
    const planOf = () => planOfStatement(EVENTS_AFTER_CURSOR, [head.transactionId, head.position]);
    const { rows } = await pool.query<{ analyzed: boolean }>("SELECT last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'seqflow_events'");
    expect(rows[0]!.analyzed).toBe(false);
    for (const plan of [await planOf(), (await pool.query('ANALYZE seqflow_events'), await planOf())]) {
      expect(plan.map((node) => node['Node Type'])).not.toContain('Seq Scan');
      expect(plan).toContainEqual(expect.objectContaining({ 'Node Type': expect.stringMatching(/^Index( Only)? Scan$/), 'Index Name': 'seqflow_events_log_order' }));
    }
  });
});
