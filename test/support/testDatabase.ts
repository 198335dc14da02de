import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { type ServiceDatabase, serviceDatabase } from './pgBouncer.ts';

/**
 * The PostgreSQL server the tests use (chosen by globalSetup.ts); each test file gets its own
 * database. Scripts outside vitest (the MCP conformance run) name it in SEQFLOW_TEST_ADMIN_URL.
 */
const adminUrl = () => process.env.SEQFLOW_TEST_ADMIN_URL ?? inject('adminDatabaseUrl');

export interface TestDatabase {
  /** The server's URL: what the test itself queries with. */
  url: string;
  name: string;
  /** How the service under test reaches it (directly, or through PgBouncer in the `pgbouncer` project): spread into its environment. */
  service: ServiceDatabase;
  drop(): Promise<void>;
}

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `seqflow_test_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  admin.on('error', () => undefined); // its query fails the test; a dropped connection afterwards is not news
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const service = await serviceDatabase(url.toString());
  return {
    url: url.toString(),
    name,
    service,
    async drop() {
      await service.close();
      const client = new pg.Client({ connectionString: adminUrl() });
      client.on('error', () => undefined);
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** How many events a test database holds, whether or not they are below the subscribers' horizon yet. */
export const countEventRows = (url: string) =>
  withClient(url, async (client) => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM seqflow_events')).rows[0]!.n));

/** Every event's type, data and metadata as text: for asserting what the log never contains. */
export const allEventText = (url: string) =>
  withClient(
    url,
    async (client) =>
      (await client.query<{ t: string }>("SELECT coalesce(string_agg(event_type || ' ' || data::text || ' ' || metadata::text, '\n'), '') AS t FROM seqflow_events")).rows[0]!.t,
  );
