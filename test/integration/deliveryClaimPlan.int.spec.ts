import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateReadModels } from '../../src/projections/migrateReadModels.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';
import { createDeliveryClaims, dueDeliveries } from '../../src/workers/deliveryClaims.ts';
import { type TestDatabase, createTestDatabase } from '../support/testDatabase.ts';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

const BACKLOG = 3000;
const HELD = 10;
const LIMIT = 32;
const noHostsFull = { hosts: [], rooms: [], perHost: 64 };

/**
 * A dispatcher's claim against a backlog (a receiver that was down, a burst of runs): it takes the
 * oldest due deliveries nobody holds, and reads about as many rows as it takes. Reading the whole
 * backlog on every claim made a drain's database time grow with the backlog it drains.
 */
describe("a dispatcher's claim over a backlog of deliveries", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<ReadModels>;
  const created = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  // Oldest first: the due order of the pending ones.
  const pending = Array.from({ length: BACKLOG }, () => randomUUID());

  beforeAll(async () => {
    database = await createTestDatabase('delivery_claim_plan');
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    pool.on('error', () => undefined); // dropping the database at the end terminates idle connections: not news
    db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
    await migrateReadModels(db);
    const row = (id: string, i: number, status: string, nextAttemptAt: string | null) => ({
      id,
      organization_id: 'org',
      execution_id: randomUUID(),
      event: 'flow.completed',
      status,
      attempts: status === 'pending' ? 0 : 1,
      response_status: null,
      error_excerpt: null,
      created_at: created(i),
      next_attempt_at: nextAttemptAt,
      updated_at: created(i),
      receiver_host: 'receiver.test:443',
    });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const rows = [
      ...pending.map((id, i) => row(id, i, 'pending', null)),
      // Retries not due for an hour, and deliveries long finished: neither is claimed.
      ...Array.from({ length: 500 }, (_, i) => row(randomUUID(), i, 'failed_retry', later)),
      ...Array.from({ length: 2000 }, (_, i) => row(randomUUID(), i, 'delivered', null)),
    ];
    // In chunks: a statement takes at most 65,535 parameters.
    for (let i = 0; i < rows.length; i += 1000) await db.insertInto('webhook_deliveries').values(rows.slice(i, i + 1000)).execute();
    // The oldest few are held by a live dispatcher elsewhere.
    await db
      .insertInto('delivery_leases')
      .values(pending.slice(0, HELD).map((id) => ({ delivery_id: id, owner: 'elsewhere', expires_at: later, claims: 1 })))
      .execute();
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  /** The rows the claim's statement read from webhook_deliveries, as PostgreSQL ran it (its locks go with the rolled-back transaction). */
  const rowsRead = async () => {
    const plan = await db
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>`EXPLAIN (ANALYZE, FORMAT JSON) ${dueDeliveries(LIMIT, noHostsFull, [])} SELECT id FROM candidate`.execute(trx);
        throw Object.assign(new Error('roll back'), { plan: rows[0]!['QUERY PLAN'][0].Plan });
      })
      .catch((error: { plan?: PlanNode }) => {
        if (!error.plan) throw error;
        return error.plan;
      });
    return nodes(plan)
      .filter((node) => node['Relation Name'] === 'webhook_deliveries')
      .reduce((sum, node) => sum + (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1), 0);
  };

  // With the table's statistics, as autovacuum gathers them once a table has changed by a tenth
  // (docs/operations.md: ANALYZE after a restore). Without any, PostgreSQL takes the open deliveries
  // for a handful and sorts them whatever the index.
  it('reads about as many deliveries as it takes, not the backlog', async () => {
    await sql`ANALYZE webhook_deliveries`.execute(db);
    const read = await rowsRead();
    // The held ones are read and passed over: the limit's worth plus those, far from the backlog.
    expect(read).toBeGreaterThanOrEqual(LIMIT + HELD);
    expect(read).toBeLessThanOrEqual(2 * (LIMIT + HELD));
  });

  it('takes the oldest due deliveries nobody holds, and the next claim the next ones', async () => {
    const claims = createDeliveryClaims(db, { owner: 'here', leaseMs: 60_000 });
    const first = await claims.claim(LIMIT, noHostsFull);
    expect(first.map((d) => d.id).sort()).toEqual(pending.slice(HELD, HELD + LIMIT).sort());
    expect(new Set(first.map((d) => d.host))).toEqual(new Set(['receiver.test:443']));
    const second = await claims.claim(LIMIT, noHostsFull);
    expect(second.map((d) => d.id).sort()).toEqual(pending.slice(HELD + LIMIT, HELD + 2 * LIMIT).sort());
  });
});
