import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './freePort.ts';
import { until } from './until.ts';

/** Debian's PgBouncer (`apt-get install pgbouncer`; .ci/run installs it). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `url` with PgBouncer's host and port in place of the server's: the same database, pooled. */
  pooled(url: string): string;
  /** Transactions PgBouncer has carried to `database` so far (its admin console's SHOW STATS). */
  transactions(database: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * A real PgBouncer in transaction mode in front of the machine's PostgreSQL (`upstream`: its
 * host and port), on a free loopback port, trusting the `postgres` user as the server does. As root
 * it runs as `postgres` (PgBouncer refuses to run as root).
 */
export async function startPgBouncer(serverUrl: string): Promise<PgBouncer> {
  const upstream = new URL(serverUrl);
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install pgbouncer (.ci/run does)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'seqflow-pgbouncer-'));
  await chmod(dir, 0o777);
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  // The server's own password, when it asks for one (an embedded test server): PgBouncer logs in with it.
  await writeFile(path.join(dir, 'userlist.txt'), `"${decodeURIComponent(upstream.username || 'postgres')}" "${decodeURIComponent(upstream.password)}"\n`);
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      `admin_users = ${decodeURIComponent(upstream.username || 'postgres')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 500',
      // After a failed login to the server PgBouncer waits this long (15 s by default) before it tries again: a restarted server is used within a second.
      'server_login_retry = 1',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  for (const file of ['pgbouncer.ini', 'userlist.txt']) await chmod(path.join(dir, file), 0o644);
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: 'ignore' });
  const admin = () => new pg.Client({ host: '127.0.0.1', port, user: decodeURIComponent(upstream.username || 'postgres'), database: 'pgbouncer' });
  const log = () => readFile(path.join(dir, 'pgbouncer.log'), 'utf8').catch(() => '');
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${await log()}`);
    const client = admin();
    client.on('error', () => undefined);
    return client.connect().then(
      () => client.end().then(() => true),
      () => false,
    );
  }, 'PgBouncer to take connections');
  return {
    pooled(url) {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    async transactions(database) {
      const client = admin();
      client.on('error', () => undefined);
      await client.connect();
      try {
        // The admin console speaks the simple protocol only.
        const { rows } = await client.query<{ database: string; total_xact_count: string }>({ text: 'SHOW STATS', queryMode: 'simple' } as pg.QueryConfig);
        return Number(rows.find((r) => r.database === database)?.total_xact_count ?? 0);
      } finally {
        await client.end();
      }
    },
    async close() {
      child.kill('SIGINT');
      await until(() => child.exitCode !== null || child.signalCode !== null, 'PgBouncer to stop').catch(() => child.kill('SIGKILL'));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this run sends the service's connections through PgBouncer: the vitest project `pgbouncer` (vitest.config.ts). */
export const throughPgBouncer = () => process.env.SEQFLOW_TEST_THROUGH_PGBOUNCER === '1';

/** How the service under test reaches a database: the variables it is started with, and what to close after. */
export interface ServiceDatabase {
  env: { DATABASE_URL: string; DATABASE_DIRECT_URL?: string };
  /**
   * Through PgBouncer: fails when none of the service's transactions went through it (a test that
   * started the service on the server's URL would otherwise pass without testing the set-up).
   */
  assertUsed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The server's database as the service reaches it: directly, or (in the `pgbouncer` project) through
 * a PgBouncer of its own in transaction mode, with DATABASE_DIRECT_URL the server, as docs/running.md
 * sets it up. The test's own queries keep using the server's URL.
 */
export async function serviceDatabase(serverUrl: string): Promise<ServiceDatabase> {
  if (!throughPgBouncer()) return { env: { DATABASE_URL: serverUrl }, assertUsed: async () => undefined, close: async () => undefined };
  const bouncer = await startPgBouncer(serverUrl);
  const database = decodeURIComponent(new URL(serverUrl).pathname.slice(1));
  return {
    env: { DATABASE_URL: bouncer.pooled(serverUrl), DATABASE_DIRECT_URL: serverUrl },
    async assertUsed() {
      const carried = await bouncer.transactions(database);
      if (carried === 0) throw new Error(`no transaction of the service went through PgBouncer to ${database}`);
    },
    close: () => bouncer.close(),
  };
}
