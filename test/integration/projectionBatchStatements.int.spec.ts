import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { creditLedgerProjection } from '../../src/projections/readModels/creditLedgerProjection.ts';
import { deliveriesProjection } from '../../src/projections/readModels/deliveriesProjection.ts';
import { applyBatch } from '../../src/projections/projectionBatch.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

const recorded = (position: number, type: string, data: unknown, schemaVersion = 1): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
  streamId: `s-${position}`,
  revision: 1,
  position,
  type,
  schemaVersion,
  data,
  metadata: { correlationId: 'c', causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt: '2026-11-29T00:00:00.000Z' },
  recordedAt: new Date('2026-11-29T00:00:00.000Z'),
  hash: null,
});
const revoked = (position: number) => recorded(position, 'ApiKeyRevoked', { keyId: `k${position}`, projectId: 'p' });

describe('a projection batch, in round trips', () => {
  let t: TestRuntime;
  let pool: pg.Pool;
  let db: Kysely<ReadModels>;
  const statements: string[] = [];

  beforeAll(async () => {
    t = await createTestRuntime('projection_batch_statements');
    pool = new pg.Pool({ connectionString: t.database.url });
    pool.on('error', () => undefined);
    // Every statement any client of the pool sends, begin and commit included.
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
        if (text !== undefined) statements.push(text.trim().split(/\s+/).slice(0, 2).join(' ').toLowerCase());
        return query(...args);
      };
    });
    db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
    await db.insertInto('projection_checkpoints').values([{ name: 'probe', position: 0 }]).execute();
    await db.insertInto('projection_checkpoints').values({ name: creditLedgerProjection.name, position: 0 }).onConflict((oc) => oc.column('name').doUpdateSet({ position: 0 })).execute();
  });
  afterAll(async () => {
    await db?.destroy();
    await t?.close();
  });

  it("locks the checkpoints, applies, moves them and commits without waiting for the disk: four round trips and the projection's own", async () => {
    const settings: string[] = [];
    const probe: Projection = {
      name: 'probe',
      handles: ['ApiKeyRevoked'],
      tables: [],
      async apply(trx) {
        settings.push((await sql<{ s: string }>`SELECT current_setting('synchronous_commit') AS s`.execute(trx)).rows[0]!.s);
      },
    };
    statements.length = 0;
    expect(await applyBatch(db, [probe], new Map(), pino({ level: 'silent' }), 0, [revoked(1), revoked(2)], Date.now())).toBe(2);
    expect(settings).toEqual(['off', 'off']);
    expect(statements).toEqual(['begin', 'select c.name,', 'select current_setting(\'synchronous_commit\')', 'select current_setting(\'synchronous_commit\')', 'update "projection_checkpoints"', 'commit']);
    const { position } = await db.selectFrom('projection_checkpoints').select('position').where('name', '=', 'probe').executeTakeFirstOrThrow();
    expect(Number(position)).toBe(2);
  });

  it('writes the credit ledger and moves the balances in one statement, and a replay of the batch moves nothing', async () => {
    const org = 'org-ledger';
    const batch = [
      recorded(11, 'CreditsGranted', { organizationId: org, tokens: 1000, note: null }),
      recorded(12, 'CreditsConsumed', { executionId: 'e1', organizationId: org, blockName: 'b', model: 'm', tokens: 30, costUsd: null }),
      recorded(13, 'CreditsConsumed', { executionId: 'e2', organizationId: 'org-other', blockName: 'b', model: 'm', tokens: 5 }),
      recorded(14, 'CreditsConsumed', { executionId: 'e1', organizationId: org, blockName: 'c', model: 'm', tokens: 20, costUsd: 0.01 }),
    ];
    const balances = async () => Object.fromEntries((await db.selectFrom('credit_balances').selectAll().where('organization_id', 'in', [org, 'org-other']).execute()).map((r) => [r.organization_id, Number(r.balance)]));
    statements.length = 0;
    await applyBatch(db, [creditLedgerProjection], new Map(), pino({ level: 'silent' }), 0, batch, Date.now());
    expect(statements).toEqual(['begin', 'select c.name,', 'with "fresh"', 'update "projection_checkpoints"', 'commit']);
    expect(await balances()).toEqual({ [org]: 950, 'org-other': -5 });
    // The same events again (a runner that read them before its checkpoint moved): the ledger has them, the balances stay.
    await db.updateTable('projection_checkpoints').set({ position: 0 }).where('name', '=', creditLedgerProjection.name).execute();
    await applyBatch(db, [creditLedgerProjection], new Map(), pino({ level: 'silent' }), 0, batch, Date.now());
    expect(await balances()).toEqual({ [org]: 950, 'org-other': -5 });
    expect(await db.selectFrom('credit_ledger').select('event_id').where('organization_id', 'in', [org, 'org-other']).execute()).toHaveLength(4);
  });

  it("writes a batch's deliveries in one insert and one update per set of columns, ending as the events one by one leave them", async () => {
    // Five deliveries through what a dispatcher records: delivered, retried later, dead-lettered then redelivered, in flight, just created.
    const events = (prefix: string, from: number) => {
      const at = '2026-11-29T00:00:01.000Z';
      const created = (id: string) => ['DeliveryCreated', { deliveryId: id, organizationId: 'o', executionId: `run-${id}`, flowId: 'f', event: 'flow.completed', url: 'https://receiver.test/hook', body: '{}', truncated: false }, 1] as const;
      const started = (id: string, attempt: number) => ['DeliveryAttemptStarted', { deliveryId: id, attempt, startedAt: at }, 1] as const;
      const finished = (id: string, attempt: number, outcome: string, responseStatus: number | null, nextAttemptAt: string | null) =>
        ['DeliveryAttemptFinished', { deliveryId: id, attempt, secretVersions: [1], outcome, responseStatus, errorExcerpt: responseStatus === 200 ? null : 'busy', nextAttemptAt, durationMs: 3 }, 2] as const;
      const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((n) => `${prefix}-${n}`) as [string, string, string, string, string];
      const steps = [
        created(a), created(b), created(c), created(d),
        started(a, 1), started(b, 1), finished(a, 1, 'succeeded', 200, null), started(c, 1),
        finished(b, 1, 'failed_retry', 503, '2026-11-29T00:01:00.000Z'), finished(c, 1, 'dead_letter', 500, null),
        ['DeliveryRedeliveryRequested', { deliveryId: c, requestedAt: at }, 1] as const, started(d, 1), created(e),
      ];
      return steps.map(([type, data, version], i) => recorded(from + i, type, data, version));
    };
    const rowsOf = async (prefix: string) =>
      (await db.selectFrom('webhook_deliveries').selectAll().where('id', 'like', `${prefix}-%`).orderBy('id').execute()).map(({ id, execution_id, ...row }) => ({ ...row, id: id.slice(prefix.length), run: execution_id.slice(prefix.length + 4) }));
    await db.insertInto('projection_checkpoints').values({ name: deliveriesProjection.name, position: 0 }).onConflict((oc) => oc.column('name').doUpdateSet({ position: 0 })).execute();
    statements.length = 0;
    await applyBatch(db, [deliveriesProjection], new Map(), pino({ level: 'silent' }), 0, events('batch', 101), Date.now());
    // The five created in one insert; the three whose attempt finished (one redelivered after) set the same columns, the one in flight three of them: two updates.
    expect(statements).toEqual(['begin', 'select c.name,', 'insert into', 'update "webhook_deliveries"', 'update "webhook_deliveries"', 'update "projection_checkpoints"', 'commit']);
    // The same history applied one event per batch: the rows it leaves are the reference.
    const single = events('single', 114);
    for (const event of single) await applyBatch(db, [deliveriesProjection], new Map(), pino({ level: 'silent' }), event.position - 1, [event], Date.now());
    const batched = await rowsOf('batch');
    expect(batched).toEqual(await rowsOf('single'));
    expect(batched.map((row) => [row.id, row.status, row.attempts])).toEqual([['-a', 'succeeded', 1], ['-b', 'failed_retry', 1], ['-c', 'pending', 1], ['-d', 'in_flight', 1], ['-e', 'pending', 0]]);
  });
});
