import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/runProcess.ts';
import { createScratchDataFolder, removeScratchDataFolder } from '../support/scratchDataFolder.ts';
import { freePort } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * Ctrl-C at the terminal signals the whole foreground process group. The embedded PostgreSQL must
 * not be part of it: it would shut down at once and cut the service's connections while the
 * service drains (each cut a level-40 "database connection failed"). The service stops it last.
 */
describe('a Ctrl-C on a service with its embedded PostgreSQL', () => {
  let dataDir: string | undefined;
  afterAll(async () => {
    if (dataDir) await removeScratchDataFolder(dataDir);
  }, 120_000);

  it('stops the service, then PostgreSQL, with nothing logged above info', async () => {
    dataDir = await createScratchDataFolder('stop');
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: ROOT,
      detached: true, // a process group of its own, as a terminal's foreground job is
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DATABASE_URL: '', SEQFLOW_MASTER_KEY: '', SEQFLOW_DATA_DIR: dataDir, PORT: String(port), SEQFLOW_CONSOLE_PORT: '0', SEQFLOW_METRICS_PORT: '0', SEQFLOW_DEMO: 'false', LOG_LEVEL: 'info', SEQFLOW_LOG_FORMAT: 'json' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until(async () => (await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => null))?.ok === true, 'the service to serve', 120_000);

    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe(0);

    const entries = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(entries.map((entry) => entry.msg)).toContain('stopped');
    expect(entries.filter((entry) => entry.level >= 40)).toEqual([]);
    // And PostgreSQL was stopped by the service (its pid file goes last).
    await until(() => !existsSync(path.join(dataDir!, 'postgres', 'postmaster.pid')), 'the embedded PostgreSQL to stop', 60_000);
  }, 180_000);
});
