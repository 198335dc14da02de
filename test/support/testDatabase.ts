import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** The PostgreSQL server the tests use (chosen by globalSetup.ts); each test file gets its own database. */
const adminUrl = () => inject('adminDatabaseUrl');

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `seqflow_test_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Every event row of a test database, committed or not yet below the subscribers' horizon. */
export async function countEventRows(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM seqflow_events');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

export async function allEventText(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string }>("SELECT coalesce(string_agg(event_type || ' ' || data::text || ' ' || metadata::text, '\n'), '') AS t FROM seqflow_events");
    return rows[0]!.t;
  } finally {
    await client.end();
  }
}
