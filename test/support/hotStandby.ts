import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type PostgresProcess, startPostgresProcess } from '../../src/database/postgresProcess.ts';
import { freePort } from './freePort.ts';

const run = promisify(execFile);

/** The machine's PostgreSQL programs (Debian's postgresql package), newest major first; undefined without them. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  return majors.map((major) => path.join(root, major, 'bin')).find((bin) => ['initdb', 'postgres', 'pg_basebackup'].every((program) => existsSync(path.join(bin, program))));
}

export interface PrimaryWithStandby {
  primaryUrl: string;
  standbyUrl: string;
  /** Stops the standby (fast shutdown): reads sent to it fail from then on. */
  stopStandby(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A PostgreSQL primary of its own and a hot standby streaming from it, as docs/running.md sets one
 * up: initdb, then pg_basebackup -R (the standby's primary_conninfo and standby.signal) and a second
 * server on its own port. Both trust loopback connections; as root they run as `postgres`. A
 * database created on the primary (`postgres` is there from the start) is on the standby too.
 */
export async function startPrimaryWithStandby(bin: string, options: { durable?: boolean } = {}): Promise<PrimaryWithStandby> {
  const owner = process.getuid?.() === 0 ? await postgresAccount() : undefined;
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const base = await mkdtemp(path.join(tmpdir(), 'seqflow-standby-'));
  if (owner) await chown(base, owner.uid, owner.gid);
  const primaryDir = path.join(base, 'primary');
  const standbyDir = path.join(base, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  // Tests need no crash safety (fsync off); the bench measures a server as it is run (`durable`).
  const common = ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${base}`, '-c', `fsync=${options.durable ? 'on' : 'off'}`, '-c', 'max_connections=300'];
  const servers: PostgresProcess[] = [];
  const stopAll = async () => {
    for (const server of servers.reverse()) await server.stop().catch(() => undefined);
    await rm(base, { recursive: true, force: true });
  };
  try {
    await run(path.join(bin, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C'], { ...asOwner, env: { ...process.env, LC_ALL: 'C' } });
    const log = () => undefined;
    servers.push(await startPostgresProcess({ postgres: path.join(bin, 'postgres'), databaseDir: primaryDir, port: primaryPort, flags: [...common, '-c', 'wal_level=replica', '-c', 'max_wal_senders=4'], onLog: log }));
    await run(path.join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast'], asOwner);
    const standby = await startPostgresProcess({ postgres: path.join(bin, 'postgres'), databaseDir: standbyDir, port: standbyPort, flags: [...common, '-c', 'hot_standby=on'], onLog: log });
    servers.push(standby);
    return {
      primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
      standbyUrl: `postgres://postgres@127.0.0.1:${standbyPort}/postgres`,
      stopStandby: () => standby.stop(),
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function postgresAccount() {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
