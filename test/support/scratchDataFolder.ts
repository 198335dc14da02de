import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { until } from './until.ts';

/** A fresh data folder under the system's temporary folder, named `seqflow-<name>-…`. */
export async function createScratchDataFolder(name: string): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `seqflow-${name}-`));
  await chmod(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
  return dataDir;
}

/**
 * Removes a scratch data folder after its `npm start` was told to stop. The embedded PostgreSQL
 * got the same SIGTERM as the service and writes its shutdown checkpoint (pg_logical and the
 * rest) after the service exits, so removing at once races it (ENOTEMPTY). PostgreSQL removes
 * postmaster.pid last: wait for that, then remove with retries for whatever still closes.
 */
export async function removeScratchDataFolder(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  await until(() => !existsSync(pidFile), `the embedded PostgreSQL in ${dataDir} to shut down`, 60_000);
  await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
