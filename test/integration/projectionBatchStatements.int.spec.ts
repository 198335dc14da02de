import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { creditLedgerProjection } from '../../src/projections/readModels/creditLedgerProjection.ts';
import { applyBatch } from '../../src/projections/projectionBatch.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

const recorded = (position: number, type: string, data: unknown): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
  streamId: `s-${position}`,
  revision: 1,
  position,
  type,
  schemaVersion: 1,
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
});
