import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/database/embeddedPostgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

const MACHINE_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Tests run against a real PostgreSQL: TEST_DATABASE_URL, else the machine's server on
 * 127.0.0.1:5432, else an embedded one started here for the run. Each test file makes its own database.
 */
export default async function setup(project: TestProject) {
  const configured = process.env.TEST_DATABASE_URL;
  if (configured) return project.provide('adminDatabaseUrl', configured);

  const probe = new pg.Client({ connectionString: MACHINE_POSTGRES, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
    await probe.end();
    return project.provide('adminDatabaseUrl', MACHINE_POSTGRES);
  } catch {
    // No server on 5432: fall through to an embedded one.
  }

  const dir = await mkdtemp(path.join(tmpdir(), 'seqflow-test-pg-'));
  await chmod(dir, 0o755);
  const embedded = await startEmbeddedPostgres(dir, pino({ level: 'warn' }));
  const url = new URL(embedded.url);
  url.pathname = '/postgres';
  project.provide('adminDatabaseUrl', url.toString());
  return async () => {
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
