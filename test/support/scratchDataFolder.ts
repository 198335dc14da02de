import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { until } from './until.ts';

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
