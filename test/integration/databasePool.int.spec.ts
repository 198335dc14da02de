import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool } from '../../src/database/databasePool.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { until } from '../support/until.ts';

describe('a pooled connection that PostgreSQL ends', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('pool_errors');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('is logged once as what PostgreSQL said (code and message), not as the whole client, and the pool goes on', async () => {
    const logged: { fields: Record<string, unknown>; message: string }[] = [];
    // Both levels the pool logs at: a connection cut after `pool.end()` (the database dropped in afterAll) is logged at info.
    const closing: string[] = [];
    const logger = { warn: (fields: Record<string, unknown>, message: string) => void logged.push({ fields, message }), info: (_fields: Record<string, unknown>, message: string) => void closing.push(message) };
    const pool = createDatabasePool({ connectionString: database.url, max: 2 }, logger as never);
    try {
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await admin.end();
      await until(() => logged.length > 0, 'the dropped connection to be logged');
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect(logged.map((entry) => entry.message)).toEqual(['database connection failed']);
      expect(logged[0]!.fields.err).toEqual({ type: 'error', message: 'terminating connection due to administrator command', code: '57P01', severity: 'FATAL' });
      expect(JSON.stringify(logged[0]!.fields)).not.toContain('connectionParameters');
    } finally {
      await pool.end();
    }
  });
});
