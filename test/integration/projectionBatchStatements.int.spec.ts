import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { applyBatch } from '../../src/projections/projectionBatch.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

const revoked = (position: number): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
  streamId: `apikey-k${position}`,
  revision: 1,
  position,
  type: 'ApiKeyRevoked',
  schemaVersion: 1,
  data: { keyId: `k${position}`, projectId: 'p' },
  metadata: { correlationId: 'c', causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt: '2026-11-29T00:00:00.000Z' },
  recordedAt: new Date('2026-11-29T00:00:00.000Z'),
  hash: null,
});

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
    await db.insertInto('projection_checkpoints').values({ name: 'probe', position: 0 }).execute();
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
});
